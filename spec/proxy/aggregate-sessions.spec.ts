import { filter, firstValueFrom } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import type { JsonRpcError } from '../../lib/jsonrpc/errors';
import { aggregate } from '../../lib/proxy/aggregate';
import { createProxyRouter } from '../../lib/proxy/proxy-router';
import type { McpProxy } from '../../lib/proxy/proxy';
import type { UpstreamContext } from '../../lib/proxy/upstream-source';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { Transport } from '../../lib/transport/transport';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import { META } from '../../lib/connection/modern';
import { until } from '../support/until';
import { clientOf, labelled, textOf } from './fixtures';
import { authenticated } from '../support/authenticated';

const INFO = { name: 'aggregate-sessions-spec', version: '1.0.0' };

/** The same transport, recording the method of every request sent over it. */
function recording(transport: Transport, sent: string[]): Transport {
  return {
    incoming$: transport.incoming$,
    closed$: transport.closed$,
    send: (message, options) => {
      for (const one of Array.isArray(message) ? message : [message])
        if ('method' in one && 'id' in one) sent.push(one.method);
      transport.send(message, options);
    },
    close: (reason) => transport.close(reason),
  };
}

/** A downstream client of `front` whose transport carries `subject` as its verified caller. */
async function callerOf(front: McpProxy, subject: string) {
  const [clientSide, serverSide] = createInMemoryPair();
  front.connect(authenticated(serverSide, { subject, scopes: [], claims: {} }));
  return connect(clientSide, { ...INFO, protocolVersion: '2025-11-25' });
}

describe('aggregate with a per-session upstream', () => {
  let beta: McpServer;
  let betaClient: McpClient;
  let front: McpProxy;
  let refusing: boolean;
  /** Each connection the connector made: for whom, and to which server. */
  let opened: Array<{ readonly context: UpstreamContext; readonly server: McpServer; readonly client: McpClient }>;

  beforeEach(async () => {
    beta = labelled('beta');
    betaClient = await clientOf(beta);
    opened = [];
    refusing = false;
    front = aggregate({
      beta: betaClient,
      crm: {
        sharing: 'perSession',
        upstream: async (context) => {
          if (refusing) throw new Error('crm is down');
          const server = labelled(`crm for ${context.downstream?.auth?.subject ?? 'nobody'}`);
          const client = await clientOf(server);
          opened.push({ context, server, client });
          return client;
        },
      },
    });
  });

  afterEach(() => {
    front.close();
    betaClient.close();
    beta.close();
    for (const { server } of opened) server.close();
  });

  it('connects for each session on its first request that needs the upstream, with its credentials', async () => {
    const ada = await callerOf(front, 'ada');
    const bob = await callerOf(front, 'bob');
    expect(textOf(await ada.promises.callTool('beta_whoami', {}))).toBe('beta');
    expect(opened).toHaveLength(0);
    expect(textOf(await ada.promises.callTool('crm_whoami', {}))).toBe('crm for ada');
    expect(textOf(await ada.promises.callTool('crm_whoami', {}))).toBe('crm for ada');
    expect(opened).toHaveLength(1);
    expect((await bob.promises.listTools()).map((tool) => tool.name)).toEqual(['beta_whoami', 'crm_whoami']);
    expect(textOf(await bob.promises.callTool('crm_whoami', {}))).toBe('crm for bob');
    expect(opened.map(({ context }) => [context.upstream, context.downstream?.auth?.subject])).toEqual([
      ['crm', 'ada'],
      ['crm', 'bob'],
    ]);
    ada.close();
    bob.close();
  });

  it('tells the connector what the session’s client declared, so its own connection may declare the same', async () => {
    const [clientSide, serverSide] = createInMemoryPair();
    front.connect(serverSide);
    const carol = await connect(clientSide, {
      name: 'carol-app',
      version: '2.0.0',
      protocolVersion: '2025-11-25',
      sampling: () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }),
    });
    await carol.promises.callTool('crm_whoami', {});
    expect(opened[0]!.context.downstream).toMatchObject({
      capabilities: { sampling: {} },
      clientInfo: { name: 'carol-app', version: '2.0.0' },
    });
    carol.close();
  });

  it('closes a session’s upstream connection when the session closes, and only that one', async () => {
    const ada = await callerOf(front, 'ada');
    const bob = await callerOf(front, 'bob');
    await ada.promises.callTool('crm_whoami', {});
    await bob.promises.callTool('crm_whoami', {});
    ada.close();
    await until(() => opened[0]!.client.state === 'shutdown');
    expect(opened[1]!.client.state).toBe('operating');
    expect(textOf(await bob.promises.callTool('crm_whoami', {}))).toBe('crm for bob');
    bob.close();
  });

  it('tells only its session when its upstream’s list changes', async () => {
    const ada = await callerOf(front, 'ada');
    const bob = await callerOf(front, 'bob');
    await ada.promises.listTools();
    await bob.promises.listTools();
    const changed = firstValueFrom(
      ada.connection.notifications$.pipe(filter((message) => message.method === 'notifications/tools/list_changed')),
    );
    opened[0]!.server.tool({ name: 'late', inputSchema: z.object({}), handler: () => textResult('late') });
    await changed;
    expect((await ada.promises.listTools()).map((tool) => tool.name)).toContain('crm_late');
    expect((await bob.promises.listTools()).map((tool) => tool.name)).not.toContain('crm_late');
    ada.close();
    bob.close();
  });

  it('answers -32000 when the connection fails, and connects again on the next request', async () => {
    const ada = await callerOf(front, 'ada');
    refusing = true;
    const failure = (await ada.promises.callTool('crm_whoami', {}).catch((e: unknown) => e)) as JsonRpcError;
    expect(failure).toMatchObject({ code: -32000, message: 'Upstream "crm" is unavailable: connecting failed' });
    refusing = false;
    expect(textOf(await ada.promises.callTool('crm_whoami', {}))).toBe('crm for ada');
    ada.close();
  });

  it('connects again after the session’s upstream connection closed', async () => {
    const ada = await callerOf(front, 'ada');
    await ada.promises.callTool('crm_whoami', {});
    opened[0]!.client.close();
    await until(() => opened[0]!.client.state === 'shutdown');
    expect(textOf(await ada.promises.callTool('crm_whoami', {}))).toBe('crm for ada');
    expect(opened).toHaveLength(2);
    ada.close();
  });
});

describe('aggregate with a per-session upstream, serving a modern request', () => {
  it('connects for the request with its headers and credentials, and closes the connection after it', async () => {
    const opened: Array<{ readonly context: UpstreamContext; readonly client: McpClient; readonly server: McpServer }> =
      [];
    const front = aggregate({
      crm: {
        sharing: 'perSession',
        upstream: async (context) => {
          const server = labelled(`crm for ${String(context.downstream?.headers?.['x-user'])}`);
          const client = await clientOf(server);
          opened.push({ context, client, server });
          return client;
        },
      },
    });
    const answered = new Promise<JsonRpcMessage>((respond) =>
      front.modern.serve(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'crm_whoami',
            arguments: {},
            _meta: {
              [META.protocolVersion]: '2026-07-28',
              [META.clientCapabilities]: {},
              [META.clientInfo]: { name: 'modern-caller', version: '1.0.0' },
            },
          },
        },
        {
          headers: { 'x-user': 'carol' },
          auth: { subject: 'carol', scopes: ['crm'], claims: {} },
          notify: () => undefined,
          respond,
        },
      ),
    );
    const response = (await answered) as { result?: { content: Array<{ text: string }> } };
    expect(response.result?.content[0]?.text).toBe('crm for carol');
    expect(opened[0]!.context.downstream).toMatchObject({ auth: { subject: 'carol' }, headers: { 'x-user': 'carol' } });
    await until(() => opened[0]!.client.state === 'shutdown');
    front.close();
    opened[0]!.server.close();
  });
});

describe('aggregate with a per-session upstream, bridging a modern caller’s rounds', () => {
  it('keeps the upstream call and its connection open across the caller’s retry, then closes it', async () => {
    const router = createProxyRouter();
    let runs = 0;
    const opened: Array<{ readonly client: McpClient; readonly server: McpServer }> = [];
    const front = aggregate(
      {
        crm: {
          sharing: 'perSession',
          upstream: async () => {
            const server = createServer({ name: 'crm', version: '1.0.0' });
            server.tool({
              name: 'ask',
              inputSchema: z.object({ prompt: z.string() }),
              handler: async ({ prompt }, context) => {
                runs++;
                const answer = await firstValueFrom(
                  context.sample({
                    messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
                    maxTokens: 5,
                  }),
                );
                return textResult(`sampled: ${(answer.content as { text: string }).text}`);
              },
            });
            const [clientSide, serverSide] = createInMemoryPair();
            server.connect(serverSide);
            const client = await connect(clientSide, {
              ...INFO,
              protocolVersion: '2025-11-25',
              ...router.clientOptions,
            });
            opened.push({ client, server });
            return client;
          },
        },
      },
      { router },
    );
    // Over Streamable HTTP a 2026-07-28 caller has no session: each round is a request of its own.
    const running = await startStreamableHttpServer({ server: front, port: 0, host: '127.0.0.1' });
    const caller = await connect(createStreamableHttpClientTransport({ url: running.url }), {
      ...INFO,
      protocolVersion: '2026-07-28',
      sampling: (params) => ({
        role: 'assistant',
        content: { type: 'text', text: `heard ${(params.messages[0]!.content as { text: string }).text}` },
        model: 'm',
      }),
    });
    const result = await caller.promises.callTool('crm_ask', { prompt: 'hello' });
    expect(textOf(result)).toBe('sampled: heard hello');
    expect(runs).toBe(1);
    await until(() => opened.length > 0 && opened.every(({ client }) => client.state === 'shutdown'));
    caller.close();
    await running.close();
    front.close();
    opened.forEach(({ server }) => server.close());
  });
});

describe('aggregate passing on a downstream client’s roots change', () => {
  it('tells a shared upstream and the session’s own per-session upstream', async () => {
    const router = createProxyRouter();
    const upstreamOf = async (server: McpServer) => {
      const [clientSide, serverSide] = createInMemoryPair();
      server.connect(serverSide);
      return connect(clientSide, { ...INFO, protocolVersion: '2025-11-25', ...router.clientOptions });
    };
    const shared = labelled('shared');
    const own = labelled('own');
    const sharedClient = await upstreamOf(shared);
    const front = aggregate(
      { shared: sharedClient, own: { sharing: 'perSession', upstream: () => upstreamOf(own) } },
      { router },
    );
    const told = (server: McpServer) =>
      new Promise<void>((resolve) => {
        const session = [...server.sessions][0]!;
        session.connection.notifications$
          .pipe(filter((message) => message.method === 'notifications/roots/list_changed'))
          .subscribe(() => resolve());
      });
    const [clientSide, serverSide] = createInMemoryPair();
    front.connect(serverSide);
    const downstream = await connect(clientSide, {
      ...INFO,
      protocolVersion: '2025-11-25',
      roots: [{ uri: 'file:///a', name: 'a' }],
    });
    // The session's own upstream is connected by its first request that needs it.
    expect(textOf(await downstream.promises.callTool('own_whoami', {}))).toBe('own');
    const heard = Promise.all([told(shared), told(own)]);
    downstream.setRoots([{ uri: 'file:///b', name: 'b' }]);
    await expect(heard).resolves.toEqual([undefined, undefined]);
    downstream.close();
    front.close();
    sharedClient.close();
    shared.close();
    own.close();
  });
});

describe('aggregate resource subscriptions', () => {
  it('subscribes upstream once for two downstream sessions, and unsubscribes after the last leaves', async () => {
    const alpha = labelled('alpha');
    const sent: string[] = [];
    const alphaClient = await clientOf(alpha, (transport) => recording(transport, sent));
    const front = aggregate({ alpha: alphaClient });
    const firstSent: string[] = [];
    const secondSent: string[] = [];
    const first = await clientOf(front, (transport) => recording(transport, firstSent));
    const second = await clientOf(front, (transport) => recording(transport, secondSent));
    const subscriptions = () =>
      sent.filter((method) => method.startsWith('resources/') && method.includes('subscribe'));
    /** The downstream client has sent `method` and has its answer. */
    const answered = (client: McpClient, own: string[], method: string) => () =>
      own.includes(method) && client.connection.pendingRequests === 0;
    const one = first.watchResource('alpha+mem://doc').subscribe();
    const two = second.watchResource('alpha+mem://doc').subscribe();
    await until(answered(first, firstSent, 'resources/subscribe'));
    await until(answered(second, secondSent, 'resources/subscribe'));
    const session = [...alpha.sessions][0]!;
    expect(session.subscriptions).toEqual(new Set(['mem://doc']));
    expect(subscriptions()).toEqual(['resources/subscribe']);
    one.unsubscribe();
    await until(answered(first, firstSent, 'resources/unsubscribe'));
    expect(subscriptions()).toEqual(['resources/subscribe']);
    expect(session.subscriptions.size).toBe(1);
    two.unsubscribe();
    await until(() => session.subscriptions.size === 0);
    expect(subscriptions()).toEqual(['resources/subscribe', 'resources/unsubscribe']);
    first.close();
    second.close();
    front.close();
    alphaClient.close();
    alpha.close();
  });
});
