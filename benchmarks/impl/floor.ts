/**
 * The floor: the least a JSON-RPC round trip can cost here. Requests and responses are
 * stringified and parsed, pending calls live in a Map, and nothing else happens: no validation,
 * no lifecycle, no timeouts. Over HTTP, a POST per request answered with one JSON body (the floor
 * has no sessions, so one server stands for the three HTTP transports).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { floorAnswer } from '../servers/floor-server';
import { startServerProcess } from '../servers/process';
import type { CallHarness, CallTransport, ConnectOptions, Implementation } from '../workload';
import { createFloorHttpClient } from './floor-http';
import type { FloorHttpClient } from './floor-http';

const SERVER_SCRIPT = join(__dirname, '../servers/floor-server.js');
const CONNECTING_AT_ONCE = 16;
const HTTP_TRANSPORTS: readonly CallTransport[] = ['http-stateful', 'http-stateless', 'http-2026'];

interface Pending {
  resolve(value: unknown): void;
}

function floorClient(write: (line: string) => void) {
  const pending = new Map<number, Pending>();
  let nextId = 0;
  const request = (method: string, params: object) =>
    new Promise<unknown>((resolve) => {
      const id = nextId++;
      pending.set(id, { resolve });
      write(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  const receive = (line: string) => {
    const message = JSON.parse(line) as { id: number; result: unknown };
    const entry = pending.get(message.id);
    pending.delete(message.id);
    entry?.resolve(message.result);
  };
  return { request, receive };
}

type Request = (method: string, params: object) => Promise<unknown>;

/** Calls go to each requester in turn. */
function harness(requests: readonly Request[], close: () => Promise<void>): CallHarness {
  let next = 0;
  const request: Request = (method, params) => requests[next++ % requests.length]!(method, params);
  return {
    call: () => request('tools/call', { name: 'echo', arguments: { text: 'hello' } }),
    callLarge: () => request('tools/call', { name: 'large', arguments: {} }),
    close,
  };
}

async function inMemory(): Promise<CallHarness> {
  // Both ends in this process; each direction is a string handed over on a microtask.
  const client = floorClient((line) =>
    queueMicrotask(() => {
      const answer = floorAnswer(JSON.parse(line));
      if (answer) {
        const reply = JSON.stringify(answer);
        queueMicrotask(() => client.receive(reply));
      }
    }),
  );
  await client.request('initialize', {});
  return harness([client.request], async () => undefined);
}

async function stdio(options?: ConnectOptions): Promise<CallHarness> {
  const child = spawn(process.execPath, [...(options?.nodeArgs ?? []), SERVER_SCRIPT], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const client = floorClient((line) => child.stdin.write(line + '\n'));
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let at: number;
    while ((at = buffer.indexOf('\n')) >= 0) {
      client.receive(buffer.slice(0, at));
      buffer = buffer.slice(at + 1);
    }
  });
  await client.request('initialize', {});
  return harness([client.request], async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin.end();
    await exited;
  });
}

/**
 * `count` clients of one floor server process over HTTP, each with its own keep-alive agent, as
 * `count` SDK clients each have theirs: the floor then opens as many connections as the SDKs do for
 * the same sessions and calls in flight (one agent shared by all, with `maxSockets` ≥ count, would
 * open no fewer sockets under the same load, but would let an idle client's socket serve another's
 * call, which separate clients cannot).
 */
async function overHttp(count: number, options?: ConnectOptions): Promise<CallHarness> {
  const server = await startServerProcess(SERVER_SCRIPT, ['--http'], options?.nodeArgs);
  const clients: FloorHttpClient[] = [];
  try {
    // Connected a few at a time, as the SDKs' harnesses connect theirs.
    for (let i = 0; i < count; i += CONNECTING_AT_ONCE) {
      const batch = Array.from({ length: Math.min(CONNECTING_AT_ONCE, count - i) }, () =>
        createFloorHttpClient(server.url),
      );
      clients.push(...batch);
      await Promise.all(batch.map((client) => client.request('initialize', {})));
    }
  } catch (error) {
    for (const client of clients) client.close();
    await server.stop();
    throw error;
  }
  return harness(
    clients.map((client) => client.request),
    async () => {
      for (const client of clients) client.close();
      await server.stop();
    },
  );
}

export const floor: Implementation = {
  name: 'floor',
  transports: ['in-memory', 'stdio', ...HTTP_TRANSPORTS],
  async connect(kind, options) {
    if (kind === 'in-memory') return inMemory();
    if (kind === 'stdio') return stdio(options);
    return overHttp(1, options);
  },
  async sessions(kind, count) {
    if (!HTTP_TRANSPORTS.includes(kind)) throw new Error(`floor: no sessions over ${kind}`);
    return overHttp(count);
  },
};
