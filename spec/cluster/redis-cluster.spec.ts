import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { filter, firstValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { ClientOptions, McpClient } from '../../lib/client/client';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { useClusterOfThree } from '../support/cluster-fixture';
import { eventually } from '../support/until';

// Issue #17: the example server as three processes of a cluster on a real redis-server, behind a
// front that sends each request to the next process in turn; driven by rxmcp's client and the
// official SDK's. Needs the build (dist/examples) and redis-server.
jest.setTimeout(60_000);

const cluster = useClusterOfThree();

const answer = {
  action: 'accept' as const,
  content: { username: 'ada', email: 'ada@example.com', name: 'Ada', color: 'teal' },
};

async function ours(url = cluster.front.url, options: Partial<ClientOptions> = {}): Promise<McpClient> {
  const transport = createStreamableHttpClientTransport({ url, reconnect: { initialDelayMs: 20, maxRetries: 10 } });
  const client = await connect(transport, {
    name: 'cluster-spec',
    version: '1.0.0',
    protocolVersion: '2025-11-25',
    elicitation: () => answer,
    ...options,
  });
  cluster.clients.push(client);
  transports.set(client, transport);
  return client;
}

const transports = new WeakMap<McpClient, { readonly sessionId: string | undefined }>();

async function official(): Promise<Client & { readonly sessionId: string | undefined }> {
  const client = new Client({ name: 'sdk-cluster-spec', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, () => answer);
  const transport = new StreamableHTTPClientTransport(new URL(cluster.front.url), {
    reconnectionOptions: {
      initialReconnectionDelay: 20,
      maxReconnectionDelay: 200,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 10,
    },
  });
  await client.connect(transport);
  cluster.clients.push(client);
  return Object.assign(client, {
    get sessionId() {
      return transport.sessionId;
    },
  });
}

const textOf = (result: unknown): string =>
  (((result as { content?: unknown }).content as Array<{ text?: string }> | undefined) ?? [])
    .map((part) => part.text ?? '')
    .join('');

const ownerOf = (sessionId: string | undefined): number => cluster.ownerOf(sessionId);

function sessionOf(client: McpClient): string {
  return transports.get(client)!.sessionId!;
}

describe('a Streamable HTTP server as three processes on Redis', () => {
  it('lists the same tools and discovers the same server on every process', async () => {
    const lists = await Promise.all(
      cluster.processes.map(async ({ url }) =>
        (await (await ours(url)).promises.listTools()).map((tool) => tool.name).sort(),
      ),
    );
    expect(lists[0]!.length).toBeGreaterThan(10);
    expect(lists[1]).toEqual(lists[0]);
    expect(lists[2]).toEqual(lists[0]);
    const discovered = await Promise.all(
      cluster.processes.map(async ({ url }) => {
        const client = await ours(url, { protocolVersion: '2026-07-28' });
        return { info: client.serverInfo, capabilities: client.serverCapabilities, revision: client.revision };
      }),
    );
    expect(discovered[0]!.revision).toBe('2026-07-28');
    expect(discovered[1]).toEqual(discovered[0]);
    expect(discovered[2]).toEqual(discovered[0]);
  });

  it('serves one session from every process: calls with progress arrive whole, in order, once', async () => {
    const client = await ours();
    const before = cluster.front.requests.length;
    const progress: number[] = [];
    for (let call = 0; call < 3; call++) {
      const result = await client.promises.callTool(
        'countdown',
        { from: 5, intervalMs: 5 },
        { onProgress: ({ progress: value }) => progress.push(value) },
      );
      expect(textOf(result)).toBe('Counted down from 5');
    }
    expect(progress).toEqual([1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5]);
    const reached = new Set(
      cluster.front.requests
        .slice(before)
        .filter((r) => r.sessionId === sessionOf(client))
        .map((r) => r.backend),
    );
    expect(reached.size).toBe(3);
  });

  it('answers an elicitation asked during a call whose answer lands on another process (both clients)', async () => {
    const mine = await ours();
    const result = await mine.promises.callTool('test_elicitation', { message: 'Who are you?' });
    expect(textOf(result)).toContain('"username":"ada"');
    const sdk = await official();
    const sdkResult = await sdk.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    expect(textOf(sdkResult)).toContain('"email":"ada@example.com"');
  });

  it('resumes a multi round-trip request (2026-07-28) whose rounds land on different processes', async () => {
    const client = await ours(cluster.front.url, { protocolVersion: '2026-07-28' });
    const before = cluster.front.requests.length;
    const result = await client.promises.callTool('test_input_required_result_multi_round', {});
    expect(textOf(result)).toBe('Ada likes teal');
    const rounds = cluster.front.requests.slice(before).filter((r) => r.rpcMethod === 'tools/call');
    expect(rounds.length).toBe(3);
    expect(new Set(rounds.map((r) => r.backend)).size).toBe(3);
  });

  it('tells subscribers on every process of resource updates and list changes made on another', async () => {
    const mine = await ours();
    // The other client's session is owned by another process.
    cluster.front.pin('initialize', (ownerOf(sessionOf(mine)) + 1) % 3);
    const sdk = await official();
    const updates: string[] = [];
    mine.connection.notifications$
      .pipe(filter((n) => n.method === 'notifications/resources/updated'))
      .subscribe((n) => updates.push(String((n.params as { uri: string }).uri)));
    let listChanges = 0;
    mine.connection.notifications$
      .pipe(filter((n) => n.method === 'notifications/tools/list_changed'))
      .subscribe(() => listChanges++);
    const sdkUpdates: string[] = [];
    sdk.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void sdkUpdates.push(n.params.uri));
    let sdkListChanges = 0;
    sdk.setNotificationHandler(ToolListChangedNotificationSchema, () => void sdkListChanges++);
    await firstValueFrom(mine.request('resources/subscribe', { uri: 'test://static-text' }));
    await sdk.subscribeResource({ uri: 'test://static-text' });
    expect(ownerOf(sessionOf(mine))).not.toBe(ownerOf(sdk.sessionId));

    for (let touch = 0; touch < 3; touch++)
      await sdk.callTool({ name: 'cluster_touch_resource', arguments: { uri: 'test://static-text' } });
    await mine.promises.callTool('cluster_add_tool', { name: 'added_in_cluster' });
    await eventually(() => updates.length >= 3 && sdkUpdates.length >= 3 && listChanges >= 1 && sdkListChanges >= 1);
    // Let anything duplicated arrive before counting.
    await mine.promises.ping();
    await sdk.ping();
    expect(updates).toEqual(['test://static-text', 'test://static-text', 'test://static-text']);
    expect(sdkUpdates).toEqual(['test://static-text', 'test://static-text', 'test://static-text']);
    expect([listChanges, sdkListChanges]).toEqual([1, 1]);
    for (const { url } of cluster.processes) {
      const names = (await (await ours(url)).promises.listTools()).map((tool) => tool.name);
      expect(names).toContain('added_in_cluster');
    }
  });

  it('tells a subscriptions/listen stream (2026-07-28) held by one process of updates made on another', async () => {
    const toucher = await ours();
    const listener = await ours(cluster.front.url, { protocolVersion: '2026-07-28' });
    cluster.front.pin('subscriptions/listen', (ownerOf(sessionOf(toucher)) + 1) % 3);
    const reads: unknown[] = [];
    const watching = listener.watchResource('test://static-text').subscribe((read) => reads.push(read));
    try {
      await eventually(() => reads.length === 1);
      await eventually(() => cluster.front.requests.some((r) => r.rpcMethod === 'subscriptions/listen'));
      // One touch at a time: the watcher reads again on each update, and a second update arriving
      // while that read is in flight replaces it (two updates would then make one read).
      for (let touch = 0; touch < 2; touch++) {
        await toucher.promises.callTool('cluster_touch_resource', { uri: 'test://static-text' });
        await eventually(() => reads.length >= 2 + touch);
      }
      await listener.promises.ping();
      expect(reads).toHaveLength(3);
      const listen = cluster.front.requests.filter((r) => r.rpcMethod === 'subscriptions/listen').at(-1)!;
      expect(listen.backend).not.toBe(ownerOf(sessionOf(toucher)));
    } finally {
      watching.unsubscribe();
    }
  });
});
