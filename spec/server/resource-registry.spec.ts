import { Observable, Subject } from 'rxjs';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { flush, serve } from './harness';

/** How `resources/list` shows the fixed resources registered in `beforeEach`. */
const FIXED_LISTING = [
  { uri: 'test://text', name: 'text', title: 'Text', mimeType: 'text/plain' },
  { uri: 'test://blob', name: 'blob', mimeType: 'image/png' },
  { uri: 'test://live', name: 'live' },
];

describe('server resources', () => {
  let server: McpServer;
  let changes: Subject<void>;
  let watchers: number;
  afterEach(() => server.close());

  beforeEach(() => {
    changes = new Subject<void>();
    watchers = 0;
    server = createServer({ name: 'resources', version: '1.0.0' });
    server.resource({ uri: 'test://text', name: 'text', title: 'Text', mimeType: 'text/plain', text: 'hello' });
    server.resource({ uri: 'test://blob', name: 'blob', mimeType: 'image/png', blob: 'AAAA' });
    server.resource({
      uri: 'test://live',
      name: 'live',
      read: async (uri) => ({ contents: [{ uri, text: 'now' }] }),
      watch: () =>
        new Observable<void>((subscriber) => {
          watchers++;
          const inner = changes.subscribe(subscriber);
          return () => {
            watchers--;
            inner.unsubscribe();
          };
        }),
    });
    server.resourceTemplate({
      uriTemplate: 'test://template/{id}/data',
      name: 'data',
      mimeType: 'application/json',
      read: (_uri, { id }) => ({ contents: [{ text: JSON.stringify({ id }) }] }),
    });
  });

  it('[resources.capabilities] declares resources with subscribe and listChanged', async () => {
    const { client } = await serve(server);
    expect(client.peerCapabilities).toMatchObject({ resources: { subscribe: true, listChanged: true } });
  });

  it('[resources.list] lists static resources and templates', async () => {
    const { call } = await serve(server);
    expect(await call('resources/list')).toEqual({ resources: FIXED_LISTING });
    expect(await call('resources/templates/list')).toEqual({
      resourceTemplates: [{ uriTemplate: 'test://template/{id}/data', name: 'data', mimeType: 'application/json' }],
    });
  });

  it('[resources.read] reads text, binary, handler and template resources', async () => {
    const { call } = await serve(server);
    expect(await call('resources/read', { uri: 'test://text' })).toEqual({
      contents: [{ uri: 'test://text', mimeType: 'text/plain', text: 'hello' }],
    });
    expect(await call('resources/read', { uri: 'test://blob' })).toEqual({
      contents: [{ uri: 'test://blob', mimeType: 'image/png', blob: 'AAAA' }],
    });
    expect(await call('resources/read', { uri: 'test://live' })).toEqual({
      contents: [{ uri: 'test://live', text: 'now' }],
    });
    expect(await call('resources/read', { uri: 'test://template/123/data' })).toEqual({
      contents: [{ uri: 'test://template/123/data', mimeType: 'application/json', text: '{"id":"123"}' }],
    });
  });

  it('[resources.not-found] answers an unknown URI with -32002 and the URI in data', async () => {
    const { call } = await serve(server);
    await expect(call('resources/read', { uri: 'test://missing' })).rejects.toMatchObject({
      code: -32002,
      data: { uri: 'test://missing' },
    });
    await expect(call('resources/subscribe', { uri: 'test://missing' })).rejects.toMatchObject({ code: -32002 });
  });

  it('[resources.subscribe] sends updates to exactly the subscribed sessions, watching once per URI', async () => {
    const a = await serve(server);
    const b = await serve(server);
    const c = await serve(server);
    await expect(a.call('resources/subscribe', { uri: 'test://live' })).resolves.toEqual({});
    await b.call('resources/subscribe', { uri: 'test://live' });
    await c.call('resources/subscribe', { uri: 'test://text' });
    expect(watchers).toBe(1);
    expect(a.session.subscriptions).toEqual(new Set(['test://live']));
    changes.next();
    server.resourceUpdated('test://text');
    await flush();
    expect(a.received('notifications/resources/updated').map((n) => n.params)).toEqual([{ uri: 'test://live' }]);
    expect(b.received('notifications/resources/updated').map((n) => n.params)).toEqual([{ uri: 'test://live' }]);
    expect(c.received('notifications/resources/updated').map((n) => n.params)).toEqual([{ uri: 'test://text' }]);

    await expect(a.call('resources/unsubscribe', { uri: 'test://live' })).resolves.toEqual({});
    changes.next();
    await flush();
    expect(a.received('notifications/resources/updated')).toHaveLength(1);
    expect(b.received('notifications/resources/updated')).toHaveLength(2);
    expect(watchers).toBe(1);
    b.session.close();
    await flush();
    expect(watchers).toBe(0);
  });

  it('[resources.subscribe] subscribes to a URI a template matches', async () => {
    const { call, session } = await serve(server);
    await call('resources/subscribe', { uri: 'test://template/7/data' });
    server.resourceUpdated('test://template/7/data');
    server.resourceUpdated('test://template/8/data');
    await flush();
    expect(session.subscriptions.has('test://template/7/data')).toBe(true);
  });

  it('[resources.list-changed] notifies when resources and templates come and go', async () => {
    const served = await serve(server);
    const extra = server.resource({ uri: 'test://extra', name: 'extra', text: 'x' });
    const template = server.resourceTemplate({
      uriTemplate: 'x://{a}',
      name: 'x',
      read: () => ({ contents: [{ text: '' }] }),
    });
    extra.remove();
    template.disable();
    await flush();
    expect(served.received('notifications/resources/list_changed')).toHaveLength(4);
    await expect(served.call('resources/read', { uri: 'x://1' })).rejects.toMatchObject({ code: -32002 });
  });

  it('[resources.register] refuses a resource with no contents and a malformed template', () => {
    expect(() => server.resource({ uri: 'test://empty', name: 'empty' })).toThrow(/text, blob or a read handler/);
    expect(() =>
      server.resourceTemplate({ uriTemplate: 'x://{a', name: 'bad', read: () => ({ contents: [] }) }),
    ).toThrow(/unclosed/);
  });

  describe('templates that list their resources', () => {
    type Page = {
      resources: Array<{ uri: string; name: string; mimeType?: string; title?: string }>;
      nextCursor?: string;
    };

    async function everyPage(
      call: (method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>,
    ) {
      const pages: Page[] = [];
      let cursor: string | undefined;
      do {
        const page = (await call('resources/list', cursor === undefined ? {} : { cursor })) as Page;
        pages.push(page);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return pages;
    }

    it('[resources.list.templates] lists what templates name after the fixed resources, with the template’s mimeType by default', async () => {
      const seen: string[] = [];
      server.resourceTemplate({
        uriTemplate: 'files:///{name}',
        name: 'file',
        mimeType: 'text/plain',
        list: async (context) => {
          seen.push(context.revision);
          return [
            { uri: 'files:///a.txt', name: 'a.txt' },
            { uri: 'files:///b.md', name: 'b.md', mimeType: 'text/markdown', title: 'B' },
          ];
        },
        read: (uri) => ({ contents: [{ uri, text: uri }] }),
      });
      const { call } = await serve(server);
      expect(await call('resources/list')).toEqual({
        resources: [
          ...FIXED_LISTING,
          { uri: 'files:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
          { uri: 'files:///b.md', name: 'b.md', mimeType: 'text/markdown', title: 'B' },
        ],
      });
      expect(seen).toEqual(['2025-11-25']);
      // An older client gets the listing adapted to its revision, as for fixed resources.
      const old = await serve(server, { protocolVersion: '2024-11-05' });
      const listed = (await old.call('resources/list')) as Page;
      expect(listed.resources.at(-1)).toEqual({ uri: 'files:///b.md', name: 'b.md', mimeType: 'text/markdown' });
    });

    it('[resources.list.templates] pages across fixed resources and several templates without losing or repeating one', async () => {
      server = createServer({ name: 'paged', version: '1.0.0', pageSize: 2 });
      server.resource({ uri: 'fixed://1', name: 'f1', text: '1' });
      server.resource({ uri: 'fixed://2', name: 'f2', text: '2' });
      server.resource({ uri: 'fixed://3', name: 'f3', text: '3' });
      const calls = { a: 0, b: 0 };
      const family = (prefix: 'a' | 'b', count: number) =>
        server.resourceTemplate({
          uriTemplate: `${prefix}://{n}`,
          name: prefix,
          list: () => {
            calls[prefix]++;
            return Array.from({ length: count }, (_, i) => ({ uri: `${prefix}://${i}`, name: `${prefix}${i}` }));
          },
          read: (uri) => ({ contents: [{ uri, text: '' }] }),
        });
      family('a', 3);
      server.resourceTemplate({
        uriTemplate: 'plain://{n}',
        name: 'plain',
        read: (uri) => ({ contents: [{ uri, text: '' }] }),
      });
      family('b', 2);
      const { call } = await serve(server);
      const pages = await everyPage(call);
      expect(pages.map((page) => page.resources.map((r) => r.name))).toEqual([
        ['f1', 'f2'],
        ['f3', 'a0'],
        ['a1', 'a2'],
        ['b0', 'b1'],
      ]);
      // Fixed pages call no template; each later page calls only the templates it reaches.
      expect(calls).toEqual({ a: 2, b: 1 });
    });

    it('[resources.list.templates] skips disabled templates and refuses a cursor it did not issue', async () => {
      const family = server.resourceTemplate({
        uriTemplate: 'gone://{n}',
        name: 'gone',
        list: () => [{ uri: 'gone://1', name: 'gone' }],
        read: (uri) => ({ contents: [{ uri, text: '' }] }),
      });
      const { call } = await serve(server);
      expect(((await call('resources/list')) as Page).resources.map((r) => r.name)).toContain('gone');
      family.disable();
      expect(((await call('resources/list')) as Page).resources.map((r) => r.name)).not.toContain('gone');
      const forged = Buffer.from('listed-resources:x:1').toString('base64url');
      await expect(call('resources/list', { cursor: forged })).rejects.toMatchObject({ code: -32602 });
    });

    it('[errors.internal] answers a failing or invalid list with -32603, a JsonRpcError as it is, and keeps serving', async () => {
      const { call } = await serve(server);
      const family = server.resourceTemplate({
        uriTemplate: 'broken://{n}',
        name: 'broken',
        list: () => Promise.reject(new Error('index on fire')),
        read: (uri) => ({ contents: [{ uri, text: '' }] }),
      });
      await expect(call('resources/list')).rejects.toMatchObject({ code: -32603, message: 'Internal error' });
      family.remove();
      const invalid = server.resourceTemplate({
        uriTemplate: 'invalid://{n}',
        name: 'invalid',
        list: () => [{ uri: 'invalid://1' }] as never,
        read: (uri) => ({ contents: [{ uri, text: '' }] }),
      });
      await expect(call('resources/list')).rejects.toMatchObject({ code: -32603 });
      invalid.remove();
      const notObjects = server.resourceTemplate({
        uriTemplate: 'strings://{n}',
        name: 'strings',
        list: () => ['strings://1'] as never,
        read: (uri) => ({ contents: [{ uri, text: '' }] }),
      });
      await expect(call('resources/list')).rejects.toMatchObject({ code: -32603 });
      notObjects.remove();
      const refusing = server.resourceTemplate({
        uriTemplate: 'refusing://{n}',
        name: 'refusing',
        list: () => {
          throw new JsonRpcError(-32001, 'not now');
        },
        read: (uri) => ({ contents: [{ uri, text: '' }] }),
      });
      await expect(call('resources/list')).rejects.toMatchObject({ code: -32001, message: 'not now' });
      refusing.remove();
      await expect(call('resources/list')).resolves.toMatchObject({
        resources: [{ name: 'text' }, { name: 'blob' }, { name: 'live' }],
      });
    });
  });

  it('[errors.internal] answers a failing read with -32603 naming the URI and the error, and keeps serving', async () => {
    server.resource({
      uri: 'test://broken',
      name: 'broken',
      read: () => {
        throw new Error('disk on fire');
      },
    });
    server.resource({ uri: 'test://invalid', name: 'invalid', read: () => ({ contents: [{ nope: true }] }) as never });
    const { call } = await serve(server);
    await expect(call('resources/read', { uri: 'test://broken' })).rejects.toMatchObject({
      code: -32603,
      message: 'Reading resource test://broken failed: disk on fire',
    });
    await expect(call('resources/read', { uri: 'test://invalid' })).rejects.toMatchObject({ code: -32603 });
    await expect(call('resources/read', { uri: 'test://text' })).resolves.toMatchObject({
      contents: [{ text: 'hello' }],
    });
  });
});
