import { Observable, Subject } from 'rxjs';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { flush, serve } from './harness';

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
    expect(await call('resources/list')).toEqual({
      resources: [
        { uri: 'test://text', name: 'text', title: 'Text', mimeType: 'text/plain' },
        { uri: 'test://blob', name: 'blob', mimeType: 'image/png' },
        { uri: 'test://live', name: 'live' },
      ],
    });
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
    expect(await call('resources/read', { uri: 'test://live' })).toEqual({ contents: [{ uri: 'test://live', text: 'now' }] });
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
    const template = server.resourceTemplate({ uriTemplate: 'x://{a}', name: 'x', read: () => ({ contents: [{ text: '' }] }) });
    extra.remove();
    template.disable();
    await flush();
    expect(served.received('notifications/resources/list_changed')).toHaveLength(4);
    await expect(served.call('resources/read', { uri: 'x://1' })).rejects.toMatchObject({ code: -32002 });
  });

  it('[resources.register] refuses a resource with no contents and a malformed template', () => {
    expect(() => server.resource({ uri: 'test://empty', name: 'empty' })).toThrow(/text, blob or a read handler/);
    expect(() => server.resourceTemplate({ uriTemplate: 'x://{a', name: 'bad', read: () => ({ contents: [] }) })).toThrow(/unclosed/);
  });

  it('[errors.internal] answers a failing read with -32603 and keeps serving', async () => {
    server.resource({ uri: 'test://broken', name: 'broken', read: () => { throw new Error('disk on fire'); } });
    server.resource({ uri: 'test://invalid', name: 'invalid', read: () => ({ contents: [{ nope: true }] }) as never });
    const { call } = await serve(server);
    await expect(call('resources/read', { uri: 'test://broken' })).rejects.toMatchObject({ code: -32603, message: 'Internal error' });
    await expect(call('resources/read', { uri: 'test://invalid' })).rejects.toMatchObject({ code: -32603 });
    await expect(call('resources/read', { uri: 'test://text' })).resolves.toMatchObject({ contents: [{ text: 'hello' }] });
  });
});
