import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { filter, firstValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { useClusterOfThree } from '../support/cluster-fixture';
import { eventually } from '../support/until';

// Issue #17: kill -9 of a cluster process mid-stream. Every message the server sent is counted at
// the client: none may be lost, none may arrive twice. Needs the build and redis-server.
jest.setTimeout(60_000);

const cluster = useClusterOfThree();

const killAndReplace = (backend: number): Promise<void> => cluster.killAndReplace(backend);

const ownerOf = (sessionId: string | undefined): number => cluster.ownerOf(sessionId);

/** What a test does with a client, the same for rxmcp's and the official SDK's. */
interface Driver {
  readonly sessionId: string | undefined;
  countdown(from: number, intervalMs: number, onProgress: (value: number) => void): Promise<string>;
  subscribe(uri: string): Promise<void>;
  touch(uri: string): Promise<void>;
  readonly updates: string[];
  ping(): Promise<void>;
  /** The cluster process that serves the session. */
  processId(): Promise<string>;
}

async function ours(): Promise<Driver> {
  const transport = createStreamableHttpClientTransport({
    url: cluster.front.url,
    reconnect: { initialDelayMs: 20, maxRetries: 20 },
  });
  const client = await connect(transport, { name: 'failover-spec', version: '1.0.0', protocolVersion: '2025-11-25' });
  cluster.clients.push(client);
  const updates: string[] = [];
  client.connection.notifications$
    .pipe(filter((n) => n.method === 'notifications/resources/updated'))
    .subscribe((n) => updates.push(String((n.params as { uri: string }).uri)));
  return {
    get sessionId() {
      return transport.sessionId;
    },
    async countdown(from, intervalMs, onProgress) {
      const result = await client.promises.callTool(
        'countdown',
        { from, intervalMs },
        { timeoutMs: 30_000, onProgress: ({ progress }) => onProgress(progress) },
      );
      return JSON.stringify(result.content);
    },
    subscribe: async (uri) => void (await firstValueFrom(client.request('resources/subscribe', { uri }))),
    touch: async (uri) => void (await client.promises.callTool('cluster_touch_resource', { uri })),
    updates,
    ping: () => client.promises.ping(),
    processId: async () => JSON.stringify((await client.promises.callTool('cluster_process', {})).content),
  };
}

async function official(): Promise<Driver> {
  const client = new Client({ name: 'sdk-failover-spec', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(cluster.front.url), {
    reconnectionOptions: {
      initialReconnectionDelay: 20,
      maxReconnectionDelay: 200,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 20,
    },
  });
  await client.connect(transport);
  cluster.clients.push(client);
  const updates: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
  return {
    get sessionId() {
      return transport.sessionId;
    },
    async countdown(from, intervalMs, onProgress) {
      const result = await client.callTool({ name: 'countdown', arguments: { from, intervalMs } }, undefined, {
        timeout: 30_000,
        onprogress: ({ progress }) => onProgress(progress),
      });
      return JSON.stringify(result.content);
    },
    subscribe: async (uri) => void (await client.subscribeResource({ uri })),
    touch: async (uri) => void (await client.callTool({ name: 'cluster_touch_resource', arguments: { uri } })),
    updates,
    ping: async () => void (await client.ping()),
    processId: async () => JSON.stringify((await client.callTool({ name: 'cluster_process', arguments: {} })).content),
  };
}

const range = (from: number): number[] => Array.from({ length: from }, (_, i) => i + 1);

/** Messages expected but not received, and received more than once. */
function count<T>(expected: readonly T[], received: readonly T[]): { lost: number; duplicated: number } {
  const seen = new Set(received);
  return { lost: expected.filter((value) => !seen.has(value)).length, duplicated: received.length - seen.size };
}

describe.each([
  ['rxmcp', ours],
  ['the official SDK', official],
] as const)('a cluster process killed mid-stream, with %s client', (_name, open) => {
  it('a call whose stream another process relays resumes elsewhere: no progress lost or repeated', async () => {
    const client = await open();
    const owner = ownerOf(client.sessionId);
    const relay = (owner + 1) % 3;
    cluster.front.pin('tools/call', relay);
    const progress: number[] = [];
    let killed: Promise<void> | undefined;
    const text = await client.countdown(30, 40, (value) => {
      progress.push(value);
      if (value === 5) killed = killAndReplace(relay);
    });
    await killed;
    expect(text).toContain('Counted down from 30');
    expect(count(range(30), progress)).toEqual({ lost: 0, duplicated: 0 });
    expect(progress).toEqual(range(30));
    // The call's own stream was resumed (a GET after one of its events), not the standalone one.
    const resumed = cluster.front.requests.filter(
      (r) => r.sessionId === client.sessionId && r.lastEventId !== undefined,
    );
    expect(resumed.some((r) => r.method === 'GET' && !/~0#/.test(r.lastEventId!))).toBe(true);
  });

  it('a session whose owner dies goes on elsewhere: its subscriptions hold and its stream resumes, nothing lost or repeated', async () => {
    const subscriber = await open();
    const owner = ownerOf(subscriber.sessionId);
    cluster.front.pin('initialize', (owner + 1) % 3);
    const toucher = await open();
    expect(ownerOf(toucher.sessionId)).not.toBe(owner);
    await subscriber.subscribe('test://static-text');
    for (let touch = 0; touch < 2; touch++) await toucher.touch('test://static-text');
    await eventually(() => subscriber.updates.length >= 2);
    const servedBy = await subscriber.processId();

    await killAndReplace(owner);
    // The subscriber's next request (or its stream's resumption) reaches a process that takes the session over.
    await subscriber.ping();
    await eventually(() =>
      cluster.front.requests.some((r) => r.method === 'GET' && r.sessionId === subscriber.sessionId && r.lastEventId),
    );
    for (let touch = 0; touch < 3; touch++) await toucher.touch('test://static-text');
    await eventually(() => subscriber.updates.length >= 5);
    await subscriber.ping();
    expect(subscriber.updates).toEqual(Array(5).fill('test://static-text'));
    // Another process serves the session now.
    expect(await subscriber.processId()).not.toBe(servedBy);
  });

  it('a call its session’s owner was running when it died is answered with an error, and the session goes on', async () => {
    const client = await open();
    const owner = ownerOf(client.sessionId);
    const servedBy = await client.processId();
    let killed: Promise<void> | undefined;
    const since = Date.now();
    const outcome = await client
      .countdown(1000, 20, (value) => {
        if (value === 3) killed ??= killAndReplace(owner);
      })
      .then(
        () => 'answered',
        (error: unknown) => String(error),
      );
    await killed;
    expect(outcome).toMatch(/process handling this request stopped/);
    // Well before the call's 30 s timeout.
    expect(Date.now() - since).toBeLessThan(15_000);
    expect(await client.processId()).not.toBe(servedBy);
  });
});
