/**
 * The cluster mode's cost (issue #17): throughput of one Streamable HTTP server as 1, 2 and 3
 * processes on Redis behind a round-robin front, and the latency a call gains when it lands on a
 * process that does not own its session (a Redis lookup and a forward to the owner). A
 * redis-server is started on a free port; everything runs on this machine, so the client, the
 * front, Redis and the server processes share its cores. Each harness also counts what its calls
 * cost Redis (issue #42): the commands Redis ran and the bytes it read and wrote between the first
 * and the last measured call (`INFO commandstats` and `INFO stats` deltas, the processes'
 * heartbeats and upkeep included), per call, printed when the harness closes.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Agent, createServer as createHttpServer, request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { connect, createStreamableHttpClientTransport } from '../lib/index';
import type { McpClient } from '../lib/index';
import { connectRedis } from '../lib/cluster/redis-connection';
import { log } from './settings';

const HANDSHAKE = { name: 'bench-client', version: '1.0.0', protocolVersion: '2025-11-25' } as const;

/** Something the workload started and stops. */
interface Stoppable {
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = createNetServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return port;
}

/** Starts a child and resolves the first line of its output that `match` accepts. */
async function started(child: ChildProcess, match: RegExp): Promise<string> {
  let out = '';
  child.stdout!.setEncoding('utf8');
  return new Promise<string>((done, fail) => {
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const found = match.exec(out);
      if (found) done(found[1] ?? found[0]);
    });
    child.once('exit', (code) => fail(new Error(`${String(child.spawnfile)} exited with ${code}: ${out}`)));
  });
}

const stopChild = (child: ChildProcess) => async () => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
};

/** A redis-server on a free port, nothing saved. */
export async function startBenchRedis(): Promise<Stoppable & { url: string }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await started(child, /Ready to accept connections/);
  child.stdout!.resume();
  return { url: `redis://127.0.0.1:${port}`, stop: stopChild(child) };
}

/** One process of the cluster; resolves its endpoint. */
async function startProcess(redisUrl: string): Promise<Stoppable & { url: string }> {
  const child = spawn(process.execPath, [join(__dirname, 'servers/rxmcp-cluster.js'), redisUrl], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await started(child, /(http:\/\/\S+\/mcp)/);
  return { url, stop: stopChild(child) };
}

/** An HTTP front that sends each request where `pick` says (round robin, say), over kept-alive connections. */
async function startFront(pick: () => string): Promise<Stoppable & { url: string }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const server = createHttpServer((req, res) => {
    const target = new URL(pick());
    const upstream = request({
      agent,
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      agent.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** What Redis did so far: commands run, by name, and bytes read and written. */
export interface RedisCounters {
  readonly commands: Readonly<Record<string, number>>;
  readonly bytesIn: number;
  readonly bytesOut: number;
}

/** Reads Redis's counters (`INFO commandstats`, `INFO stats`); the INFO commands that read them are left out. */
export async function redisCounters(redisUrl: string): Promise<RedisCounters> {
  const redis = await connectRedis(redisUrl);
  try {
    const stats = String(await redis.call('INFO', ['stats']));
    const commandstats = String(await redis.call('INFO', ['commandstats']));
    const commands: Record<string, number> = {};
    for (const match of commandstats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) commands[match[1]!] = Number(match[2]);
    const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(stats)?.[1] ?? NaN);
    return { commands, bytesIn: field('total_net_input_bytes'), bytesOut: field('total_net_output_bytes') };
  } finally {
    await redis.quit();
  }
}

/** What one call cost Redis between two readings of its counters. */
export interface RedisCostPerCall {
  readonly commands: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** Commands per call, by name, the most frequent first. */
  readonly byCommand: ReadonlyArray<readonly [string, number]>;
}

/** The difference of two readings of Redis's counters, per call of the `calls` made between them. */
export function costPerCall(before: RedisCounters, after: RedisCounters, calls: number): RedisCostPerCall {
  const byCommand: Array<[string, number]> = [];
  let total = 0;
  for (const [name, count] of Object.entries(after.commands)) {
    // The readings' own INFO (and the connection's HELLO/CLIENT) are not the calls' doing.
    if (name === 'info' || name === 'client' || name === 'hello' || name === 'quit') continue;
    const delta = count - (before.commands[name] ?? 0);
    if (delta <= 0) continue;
    total += delta;
    byCommand.push([name, delta / calls]);
  }
  byCommand.sort((a, b) => b[1] - a[1]);
  return {
    commands: total / calls,
    bytesIn: (after.bytesIn - before.bytesIn) / calls,
    bytesOut: (after.bytesOut - before.bytesOut) / calls,
    byCommand,
  };
}

/** One line for the bench's log: a harness's Redis cost per call. */
export function describeCost(name: string, cost: RedisCostPerCall): string {
  const top = cost.byCommand
    .slice(0, 6)
    .map(([command, count]) => `${command} ${count.toFixed(2)}`)
    .join(', ');
  return (
    `${name}: ${cost.commands.toFixed(2)} Redis commands per call (${top}), ` +
    `${Math.round(cost.bytesIn)} bytes to Redis and ${Math.round(cost.bytesOut)} from it per call`
  );
}

/** Calls spread over several sessions (clients), each call on the next client. */
export interface ClusterHarness {
  call(): Promise<unknown>;
  close(): Promise<void>;
}

async function clientsOf(
  url: string,
  count: number,
  parts: Stoppable[],
  cost: { readonly redisUrl: string; readonly name: string },
): Promise<ClusterHarness> {
  const clients: McpClient[] = [];
  for (let i = 0; i < count; i++) clients.push(await connect(createStreamableHttpClientTransport({ url }), HANDSHAKE));
  let next = 0;
  let before: RedisCounters | undefined;
  let calls = 0;
  return {
    call: async () => {
      before ??= await redisCounters(cost.redisUrl);
      calls++;
      return clients[next++ % clients.length]!.promises.callTool('echo', { text: 'hello' });
    },
    close: async () => {
      if (before !== undefined && calls > 0)
        log(describeCost(cost.name, costPerCall(before, await redisCounters(cost.redisUrl), calls)));
      for (const client of clients) {
        const closed = firstValueFrom(client.connection.closed$);
        client.close();
        await closed;
      }
      for (const part of parts.reverse()) await part.stop();
    },
  };
}

/** `processes` cluster processes on `redisUrl` behind a round-robin front, with 8 client sessions. */
export async function clusterHarness(redisUrl: string, processes: number): Promise<ClusterHarness> {
  const members = await Promise.all(Array.from({ length: processes }, () => startProcess(redisUrl)));
  let next = 0;
  const front = await startFront(() => members[next++ % members.length]!.url);
  return clientsOf(front.url, 8, [...members, front], { redisUrl, name: `cluster, ${processes} process(es)` });
}

/**
 * One client session, sequential calls through a front: `owner` sends every request to the cluster
 * process that owns the session, `forwarded` every one after the initialize to another process,
 * which looks the session up in Redis and forwards it to the owner. The difference is what routing
 * through Redis adds to a call.
 */
export async function routingHarness(redisUrl: string, shape: 'owner' | 'forwarded'): Promise<ClusterHarness> {
  const owner = await startProcess(redisUrl);
  const other = await startProcess(redisUrl);
  // The session opens on the owner: its initialize is the first request.
  let sent = 0;
  const front = await startFront(() => (sent++ === 0 || shape === 'owner' ? owner.url : other.url));
  return clientsOf(front.url, 1, [owner, other, front], {
    redisUrl,
    name: `cluster, call sent to the ${shape === 'owner' ? 'owner' : 'other process'}`,
  });
}
