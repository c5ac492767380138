import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { programPath } from './programs';

/** A free loopback port whose Redis Cluster bus port (10 000 above it) is free too. */
async function freeClusterPort(): Promise<number> {
  for (;;) {
    const port = await bound(0);
    if (port + 10_000 < 65_536 && (await bound(port + 10_000).catch(() => 0)) > 0) return port;
  }
}

/** Binds `port` (0: any) on 127.0.0.1, closes it, and resolves with the port. */
async function bound(port: number): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done, fail) => {
    probe.once('error', fail);
    probe.listen(port, '127.0.0.1', done);
  });
  const taken = (probe.address() as AddressInfo).port;
  await new Promise((done) => probe.close(done));
  return taken;
}

/** A Redis program started for a test; `kill` ends it with SIGKILL and waits for its exit. */
export interface RedisProcess {
  readonly port: number;
  readonly child: ChildProcess;
  kill(): Promise<void>;
}

/** Starts a Redis program (`redis-server` or `redis-sentinel`) with `args`; resolves once it accepts connections. */
async function startProgram(program: string, port: number, args: readonly string[]): Promise<RedisProcess> {
  const child = spawn(programPath(program), [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((done, fail) => {
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      if (/Ready to accept connections|Sentinel ID is/.test(out)) done();
    });
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`${program} exited with ${code}: ${out}`)));
  });
  child.stdout!.resume();
  return {
    port,
    child,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Runs `redis-cli` with `args`; resolves with what it printed. */
function cli(args: readonly string[]): Promise<string> {
  return new Promise((done, fail) =>
    execFile(programPath('redis-cli'), [...args], (error, stdout, stderr) =>
      error ? fail(new Error(`redis-cli ${args.join(' ')}: ${stderr || error.message}`)) : done(stdout),
    ),
  );
}

async function until(check: () => Promise<boolean>, withinMs: number, what: string): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} not within ${withinMs} ms`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** A Redis Cluster of three primaries on loopback, for a test. */
export interface RunningRedisCluster {
  /** `redis+cluster://` with every node. */
  readonly url: string;
  readonly nodes: readonly RedisProcess[];
  stop(): Promise<void>;
}

/**
 * Starts three `redis-server --cluster-enabled yes` on free loopback ports, joins them with
 * `redis-cli --cluster create` (no replicas: each primary holds a third of the slots), and resolves
 * once every node says the cluster is ok. Nothing is saved to disk but the nodes' own config files,
 * in a temporary folder removed by `stop`.
 */
export async function startRedisCluster(): Promise<RunningRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'rxmcp-redis-cluster-'));
  const nodes: RedisProcess[] = [];
  const stop = async () => {
    for (const node of nodes) await node.kill();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      const port = await freeClusterPort();
      nodes.push(
        await startProgram('redis-server', port, [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '2000',
          '--dir',
          dir,
        ]),
      );
    }
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await cli(['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
    for (const node of nodes)
      await until(
        async () => (await cli(['-p', String(node.port), 'cluster', 'info'])).includes('cluster_state:ok'),
        10_000,
        `the cluster state of node ${node.port}`,
      );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis+cluster://${nodes.map((node) => `127.0.0.1:${node.port}`).join(',')}`, nodes, stop };
}

/** A primary, its replica and a Sentinel watching them, for a test. */
export interface RunningSentinelSet {
  /** `redis+sentinel://` with the sentinel and the primary's name. */
  readonly url: string;
  readonly primary: RedisProcess;
  readonly replica: RedisProcess;
  readonly sentinel: RedisProcess;
  /** The port of the server Sentinel names as primary now. */
  primaryPort(): Promise<number>;
  stop(): Promise<void>;
}

/** The name the Sentinel set's primary goes by. */
export const SENTINEL_PRIMARY = 'rxmcp-primary';

/**
 * Starts a primary and a replica of it (`redis-server --replicaof`) and one `redis-sentinel` that
 * watches them with a quorum of 1, taking the primary for down after 500 ms without an answer.
 * Resolves once the replica is in sync and Sentinel knows it.
 */
export async function startSentinelSet(): Promise<RunningSentinelSet> {
  const dir = mkdtempSync(join(tmpdir(), 'rxmcp-sentinel-'));
  const started: RedisProcess[] = [];
  const stop = async () => {
    for (const item of started) await item.kill();
    rmSync(dir, { recursive: true, force: true });
  };
  const server = (port: number, extra: readonly string[] = []) =>
    startProgram('redis-server', port, [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      ...extra,
    ]);
  try {
    const primaryPort = await bound(0);
    started.push(await server(primaryPort));
    const replicaPort = await bound(0);
    started.push(await server(replicaPort, ['--replicaof', '127.0.0.1', String(primaryPort)]));
    await until(
      async () => (await cli(['-p', String(replicaPort), 'info', 'replication'])).includes('master_link_status:up'),
      10_000,
      'the replica in sync',
    );
    const sentinelPort = await bound(0);
    const config = join(dir, 'sentinel.conf');
    writeFileSync(
      config,
      [
        `port ${sentinelPort}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${SENTINEL_PRIMARY} 127.0.0.1 ${primaryPort} 1`,
        `sentinel down-after-milliseconds ${SENTINEL_PRIMARY} 500`,
        `sentinel failover-timeout ${SENTINEL_PRIMARY} 5000`,
        `sentinel parallel-syncs ${SENTINEL_PRIMARY} 1`,
        '',
      ].join('\n'),
    );
    started.push(await startProgram('redis-sentinel', sentinelPort, [config]));
    await until(
      async () =>
        (await cli(['-p', String(sentinelPort), 'sentinel', 'replicas', SENTINEL_PRIMARY])).includes(
          String(replicaPort),
        ),
      10_000,
      'Sentinel to know the replica',
    );
    const [primary, replica, sentinel] = started as [RedisProcess, RedisProcess, RedisProcess];
    return {
      url: `redis+sentinel://127.0.0.1:${sentinelPort}/${SENTINEL_PRIMARY}`,
      primary,
      replica,
      sentinel,
      async primaryPort() {
        const reply = await cli(['-p', String(sentinelPort), 'sentinel', 'get-master-addr-by-name', SENTINEL_PRIMARY]);
        return Number(reply.trim().split('\n')[1]);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A `redis-server` that keeps its data across restarts (an append-only file, synced on every write). */
export interface DurableRedis {
  readonly url: string;
  /** Kills the server (SIGKILL) and starts it again on the same port with the data it had. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a `redis-server` whose data survives a SIGKILL and a restart, in a temporary folder `stop` removes. */
export async function startDurableRedis(): Promise<DurableRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'rxmcp-durable-redis-'));
  const port = await bound(0);
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'yes',
    '--appendfsync',
    'always',
  ];
  let server = await startProgram('redis-server', port, args);
  return {
    url: `redis://127.0.0.1:${port}`,
    async restart() {
      await server.kill();
      server = await startProgram('redis-server', port, args);
    },
    async stop() {
      await server.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
