import { startExample, stopExample } from './example-server';
import type { RunningExample } from './example-server';
import { startRedis } from './redis-server';
import type { RunningRedis } from './redis-server';
import { startRoundRobinFront } from './round-robin-front';
import type { RoundRobinFront } from './round-robin-front';

/** The example server as three processes of a cluster on a real redis-server, behind a round-robin front. */
export interface ClusterOfThree {
  readonly redis: RunningRedis;
  /** The processes, by their place behind the front. */
  readonly processes: RunningExample[];
  readonly front: RoundRobinFront;
  /** Clients a test opened: closed after each test. */
  readonly clients: Array<{ close(): unknown }>;
  /** The place behind the front of the process that answered the session's initialize. */
  ownerOf(sessionId: string | undefined): number;
  /** Kills the process at `backend` with SIGKILL and starts another in its place behind the front. */
  killAndReplace(backend: number): Promise<void>;
}

/** Starts the cluster before the tests of the file that calls it, and stops it after them. */
export function useClusterOfThree(): ClusterOfThree {
  const state = { clients: [] } as unknown as {
    -readonly [K in keyof ClusterOfThree]: ClusterOfThree[K];
  };
  state.ownerOf = (sessionId) => {
    const opened = state.front.requests.find(
      (entry) => entry.rpcMethod === 'initialize' && entry.sessionId === sessionId,
    );
    if (!opened) throw new Error(`no initialize seen for ${sessionId}`);
    return opened.backend;
  };
  state.killAndReplace = async (backend) => {
    await stopExample(state.processes[backend]!, 'SIGKILL');
    state.processes[backend] = await startExample(['--redis', state.redis.url]);
    state.front.replace(backend, state.processes[backend]!.url);
  };
  beforeAll(async () => {
    state.redis = await startRedis();
    state.processes = await Promise.all([0, 1, 2].map(() => startExample(['--redis', state.redis.url])));
    state.front = await startRoundRobinFront(state.processes.map((running) => running.url));
  });
  afterEach(async () => {
    for (const client of state.clients.splice(0)) await client.close();
  });
  afterAll(async () => {
    await state.front?.close();
    for (const running of state.processes ?? []) await stopExample(running, 'SIGKILL');
    await state.redis?.stop();
  });
  return state;
}

/**
 * Kills `redis` and starts an empty redis-server on the same port in its place (as a Redis that
 * restarted without persistence); resolves once it accepts connections.
 */
export async function restartRedisEmpty(redis: RunningRedis): Promise<RunningRedis> {
  await redis.stop();
  return startRedis(Number(new URL(redis.url).port));
}
