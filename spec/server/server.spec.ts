import pino from 'pino';
import { firstValueFrom, lastValueFrom } from 'rxjs';
import { z } from 'zod';
import { CapabilityNotSupportedError } from '../../lib/jsonrpc/errors';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { flush, serve } from './harness';

describe('createServer', () => {
  let server: McpServer;
  afterEach(() => server.close());

  describe('capabilities', () => {
    it('[capabilities.derived] declares only logging when nothing is registered, and refuses the rest with -32601', async () => {
      server = createServer({ name: 's', version: '1' });
      const { client, call } = await serve(server);
      expect(client.peerCapabilities).toEqual({ logging: {} });
      await expect(call('tools/list')).rejects.toMatchObject({
        code: -32601,
        message: expect.stringContaining('tools'),
      });
      await expect(call('prompts/list')).rejects.toMatchObject({ code: -32601 });
      await expect(call('resources/subscribe', { uri: 'x://y' })).rejects.toMatchObject({ code: -32601 });
      await expect(
        call('completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } }),
      ).rejects.toMatchObject({ code: -32601 });
    });

    it('[capabilities.options] merges given capabilities and can leave logging out', async () => {
      server = createServer({
        name: 's',
        version: '1',
        logging: false,
        capabilities: { tools: { listChanged: false }, experimental: { x: {} } },
      });
      server.tool({ name: 't', description: 't', handler: () => ({ content: [] }) });
      expect(server.capabilities()).toEqual({ tools: { listChanged: false }, experimental: { x: {} } });
      const served = await serve(server);
      await expect(served.call('logging/setLevel', { level: 'info' })).rejects.toMatchObject({ code: -32601 });
      server.tool({ name: 'u', description: 'u', handler: () => ({ content: [] }) });
      await flush();
      expect(served.received('notifications/tools/list_changed')).toEqual([]);
    });

    it('[capabilities.per-session] keeps what a session was told at initialize', async () => {
      server = createServer({ name: 's', version: '1' });
      const early = await serve(server);
      server.prompt({ name: 'p', description: 'p', handler: () => ({ messages: [] }) });
      const late = await serve(server);
      await expect(early.call('prompts/list')).rejects.toMatchObject({ code: -32601 });
      await expect(late.call('prompts/list')).resolves.toEqual({ prompts: [{ name: 'p', description: 'p' }] });
      await flush();
      expect(early.received('notifications/prompts/list_changed')).toEqual([]);
    });
  });

  describe('logging', () => {
    function chatty() {
      server = createServer({ name: 's', version: '1' });
      server.tool({
        name: 'chatty',
        description: 'logs at every level',
        handler: (_args, context) => {
          for (const level of ['debug', 'info', 'warning', 'error'] as const)
            context.log(level, `at ${level}`, 'chatty');
          return { content: [] };
        },
      });
      return server;
    }

    it('[logging.set-level] answers exactly {} and filters each session by its own level', async () => {
      chatty();
      const a = await serve(server);
      const b = await serve(server);
      await expect(a.call('logging/setLevel', { level: 'warning' })).resolves.toEqual({});
      expect(a.session.logLevel).toBe('warning');
      await a.call('tools/call', { name: 'chatty' });
      await b.call('tools/call', { name: 'chatty' });
      await flush();
      expect(a.received('notifications/message').map((n) => n.params)).toEqual([
        { level: 'warning', data: 'at warning', logger: 'chatty' },
        { level: 'error', data: 'at error', logger: 'chatty' },
      ]);
      expect(b.received('notifications/message')).toHaveLength(4);
    });

    it('[logging.invalid-level] answers -32602 for an unknown level', async () => {
      chatty();
      const { call } = await serve(server);
      await expect(call('logging/setLevel', { level: 'loud' })).rejects.toMatchObject({ code: -32602 });
    });

    it('[logging.pino] forwards pino log lines to every session at or above its level', async () => {
      chatty();
      const a = await serve(server);
      const b = await serve(server);
      await b.call('logging/setLevel', { level: 'error' });
      const toClients = pino({ name: 'app', level: 'debug' }, server.logDestination());
      toClients.info({ disk: '95%' }, 'running out of space');
      toClients.error('disk full');
      await flush();
      expect(a.received('notifications/message').map((n) => n.params)).toEqual([
        { level: 'info', logger: 'app', data: { disk: '95%', msg: 'running out of space' } },
        { level: 'error', logger: 'app', data: { msg: 'disk full' } },
      ]);
      expect(b.received('notifications/message').map((n) => (n.params as { level: string }).level)).toEqual(['error']);
      server.log('critical', { reason: 'test' });
      await flush();
      expect(a.received('notifications/message').at(-1)!.params).toEqual({
        level: 'critical',
        data: { reason: 'test' },
      });
    });
  });

  describe('pagination', () => {
    beforeEach(() => {
      server = createServer({ name: 's', version: '1', pageSize: 2 });
      for (const name of ['a', 'b', 'c', 'd', 'e'])
        server.tool({ name, description: name, handler: () => ({ content: [] }) });
    });

    it('[pagination] pages with an opaque cursor until there is none', async () => {
      const { call } = await serve(server);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = (await call('tools/list', cursor === undefined ? {} : { cursor })) as {
          tools: Array<{ name: string }>;
          nextCursor?: string;
        };
        seen.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined);
      expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
      expect(pages).toBe(3);
    });

    it('[pagination.stable] does not skip an item when an earlier one is removed between pages', async () => {
      const { call } = await serve(server);
      const first = (await call('tools/list')) as { nextCursor: string };
      server.removeTool('a');
      const second = (await call('tools/list', { cursor: first.nextCursor })) as { tools: Array<{ name: string }> };
      expect(second.tools.map((t) => t.name)).toEqual(['c', 'd']);
    });

    it('[pagination.invalid-cursor] answers an invalid cursor with -32602', async () => {
      const { call } = await serve(server);
      await expect(call('tools/list', { cursor: 'garbage' })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('cursor'),
      });
      const promptCursor = Buffer.from('prompts:1').toString('base64url');
      await expect(call('tools/list', { cursor: promptCursor })).rejects.toMatchObject({ code: -32602 });
    });

    it('rejects a page size that is not a positive integer', () => {
      expect(() => createServer({ name: 's', version: '1', pageSize: 0 })).toThrow(RangeError);
    });
  });

  describe('requests to the client', () => {
    function asking() {
      server = createServer({ name: 's', version: '1' });
      server.tool({
        name: 'ask',
        description: 'asks the client',
        inputSchema: z.object({ what: z.enum(['sample', 'elicit', 'url', 'roots']) }),
        handler: async ({ what }, context) => {
          try {
            const answer =
              what === 'sample'
                ? await firstValueFrom(
                    context.sample({
                      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
                      maxTokens: 5,
                    }),
                  )
                : what === 'elicit'
                  ? await firstValueFrom(
                      context.elicit({
                        message: 'name?',
                        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
                      }),
                    )
                  : what === 'url'
                    ? await firstValueFrom(
                        context.elicitUrl({ message: 'go', url: 'https://example.com/auth', elicitationId: 'e1' }),
                      )
                    : await firstValueFrom(context.listRoots());
            return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
          } catch (error) {
            return {
              content: [{ type: 'text', text: `${(error as Error).name}: ${(error as Error).message}` }],
              isError: true,
            };
          }
        },
      });
      return server;
    }
    const textOf = (result: Record<string, unknown>) => (result.content as Array<{ text: string }>)[0]!.text;

    it('[sampling] sends sampling/createMessage related to the tool call and uses the answer', async () => {
      const seen: unknown[] = [];
      const { call } = await serve(asking(), {
        capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} },
        handlers: {
          'sampling/createMessage': (params) => {
            seen.push(params);
            return { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' };
          },
          'elicitation/create': (params) => ({ action: 'accept', content: { echo: String(params.mode ?? 'form') } }),
          'roots/list': () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }),
        },
      });
      expect(
        JSON.parse(textOf(await call('tools/call', { name: 'ask', arguments: { what: 'sample' } }))),
      ).toMatchObject({ model: 'm' });
      expect(seen).toEqual([{ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 }]);
      expect(JSON.parse(textOf(await call('tools/call', { name: 'ask', arguments: { what: 'elicit' } })))).toEqual({
        action: 'accept',
        content: { echo: 'form' },
      });
      expect(JSON.parse(textOf(await call('tools/call', { name: 'ask', arguments: { what: 'url' } })))).toEqual({
        action: 'accept',
        content: { echo: 'url' },
      });
      expect(JSON.parse(textOf(await call('tools/call', { name: 'ask', arguments: { what: 'roots' } })))).toEqual({
        roots: [{ uri: 'file:///work', name: 'work' }],
      });
    });

    it('[capabilities.client] refuses locally what the client did not declare, naming the capability', async () => {
      const { call } = await serve(asking(), { capabilities: { elicitation: {} } });
      expect(textOf(await call('tools/call', { name: 'ask', arguments: { what: 'sample' } }))).toMatch(
        /CapabilityNotSupportedError: .*sampling/,
      );
      expect(textOf(await call('tools/call', { name: 'ask', arguments: { what: 'roots' } }))).toMatch(/roots/);
      expect(textOf(await call('tools/call', { name: 'ask', arguments: { what: 'url' } }))).toMatch(/elicitation\.url/);
      // `elicitation: {}` means form mode.
      const { call: call2 } = await serve(asking(), {
        capabilities: { elicitation: {} },
        handlers: { 'elicitation/create': () => ({ action: 'decline' }) },
      });
      expect(textOf(await call2('tools/call', { name: 'ask', arguments: { what: 'elicit' } }))).toBe(
        '{"action":"decline"}',
      );
    });

    it('[elicitation.revision] refuses elicitation to a 2025-03-26 client and URL mode before 2025-11-25', async () => {
      const old = await serve(asking(), { protocolVersion: '2025-03-26', capabilities: { elicitation: {} } });
      expect(textOf(await old.call('tools/call', { name: 'ask', arguments: { what: 'elicit' } }))).toMatch(
        /elicitation/,
      );
      const mid = await serve(asking(), { protocolVersion: '2025-06-18', capabilities: { elicitation: { url: {} } } });
      expect(textOf(await mid.call('tools/call', { name: 'ask', arguments: { what: 'url' } }))).toMatch(
        /elicitation\.url/,
      );
    });

    it('[session.requests] lets server code ask a client outside any request', async () => {
      const { session } = await serve(asking(), { capabilities: {} });
      await expect(firstValueFrom(session.listRoots())).rejects.toBeInstanceOf(CapabilityNotSupportedError);
    });
  });

  describe('sessions', () => {
    it('[sessions.many] serves concurrent sessions from one definition, each with its own state', async () => {
      server = createServer({ name: 's', version: '1' });
      server.tool({
        name: 'who',
        description: 'who am i',
        handler: (_args, context) => ({ content: [{ type: 'text', text: context.session!.id }] }),
      });
      const served = await Promise.all(Array.from({ length: 20 }, () => serve(server)));
      expect(server.sessions.size).toBe(20);
      const ids = await Promise.all(
        served.map(
          async (s) => ((await s.call('tools/call', { name: 'who' })).content as Array<{ text: string }>)[0]!.text,
        ),
      );
      expect(new Set(ids).size).toBe(20);
      expect(ids[3]).toBe(served[3]!.session.id);
      served[0]!.client.close();
      await flush();
      expect(server.sessions.size).toBe(19);
      server.close();
      await flush();
      expect(server.sessions.size).toBe(0);
      const again = await serve(server);
      await expect(lastValueFrom(again.client.request('ping'))).resolves.toEqual({});
    });
  });
});

describe('maxSubscriptionsPerSession (#13)', () => {
  it('refuses a subscription past the limit with -32600, and takes the same URI again at no cost', async () => {
    const server = createServer({ name: 'subs', version: '1', maxSubscriptionsPerSession: 2 });
    server.resourceTemplate({
      uriTemplate: 'test://item/{n}',
      name: 'item',
      read: (uri) => ({ contents: [{ uri, text: uri }] }),
    });
    const { call } = await serve(server);
    await call('resources/subscribe', { uri: 'test://item/1' });
    await call('resources/subscribe', { uri: 'test://item/2' });
    await call('resources/subscribe', { uri: 'test://item/2' });
    await expect(call('resources/subscribe', { uri: 'test://item/3' })).rejects.toMatchObject({ code: -32600 });
    server.close();
  });
});

describe('createServer with a console-like logger (#15)', () => {
  it('takes it, warns about a tool name that breaks the rules, and logs a failing handler', async () => {
    const calls: Array<[string, unknown]> = [];
    const logger = {
      error: (message: unknown) => void calls.push(['error', message]),
      warn: (message: unknown) => void calls.push(['warn', message]),
      info: (message: unknown) => void calls.push(['info', message]),
    };
    const server = createServer({ name: 'console', version: '1', logger: logger as never });
    server.tool({ name: 'has spaces!', description: 'badly named', handler: () => ({ content: [] }) });
    server.tool({
      name: 'boom',
      description: 'fails',
      handler: () => {
        throw new Error('kaput');
      },
    });
    expect(calls).toContainEqual(['warn', expect.stringMatching(/tool name breaks the naming rules/)]);
    const { call } = await serve(server);
    await expect(call('tools/call', { name: 'boom', arguments: {} })).resolves.toMatchObject({ isError: true });
    expect(calls).toContainEqual(['warn', 'tool handler failed']);
    server.close();
  });
});

describe('McpServer.requiredScopes', () => {
  it('names the scopes of the tool, resource (or its template) and prompt a request uses, and none otherwise', () => {
    const server = createServer({ name: 'scopes', version: '1' });
    server.tool({ name: 'admin', description: 'd', scopes: ['t'], handler: () => ({ content: [] }) });
    server.resource({ uri: 'x://fixed', name: 'fixed', text: 'x', scopes: ['r'] });
    server.resourceTemplate({
      uriTemplate: 'x://item/{n}',
      name: 'item',
      scopes: ['rt'],
      read: (uri) => ({ contents: [{ uri, text: uri }] }),
    });
    server.prompt({ name: 'p', description: 'd', scopes: ['p'], handler: () => ({ messages: [] }) });
    expect(server.requiredScopes('tools/call', { name: 'admin' })).toEqual(['t']);
    expect(server.requiredScopes('resources/read', { uri: 'x://fixed' })).toEqual(['r']);
    expect(server.requiredScopes('resources/subscribe', { uri: 'x://item/7' })).toEqual(['rt']);
    expect(server.requiredScopes('prompts/get', { name: 'p' })).toEqual(['p']);
    expect(server.requiredScopes('tools/call', { name: 'unknown' })).toEqual([]);
    expect(server.requiredScopes('tools/list', {})).toEqual([]);
    server.close();
  });
});
