import { firstValueFrom, skip, take, toArray, VirtualTimeScheduler } from 'rxjs';
import { CapabilityNotSupportedError } from '../../lib/jsonrpc/errors';
import { flush } from './fake-server';
import { modernPeer } from './modern-peer';
import type { Frame, ModernPeer } from './modern-peer';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });

/** Sends what a server sends on a listen stream: a notification tagged with the listen request's id. */
function onStream(modern: ModernPeer, listen: Frame, method: string, params: Record<string, unknown> = {}): void {
  modern.peer.send({ jsonrpc: '2.0', method, params: { ...params, _meta: { [SUBSCRIPTION_ID]: listen.id } } });
}

/** Acknowledges a listen request with what it asked for, or with `granted`. */
function acknowledge(modern: ModernPeer, listen: Frame, granted?: Record<string, unknown>): void {
  onStream(modern, listen, 'notifications/subscriptions/acknowledged', {
    notifications: granted ?? listen.params.notifications,
  });
}

describe('modern revisions: lists and subscriptions', () => {
  let modern: ModernPeer | undefined;
  afterEach(() => modern?.client.close());

  it('[subscriptions.tools] tools$ listens for tools list changes, refreshes after the acknowledgement and on each change', async () => {
    modern = await modernPeer({}, { tools: { listChanged: true } });
    const { client, nextRequest, reply } = modern;
    const lists = firstValueFrom(client.tools$.pipe(take(3), toArray()));
    const requests = [await nextRequest(), await nextRequest()];
    const listen = requests.find((r) => r.method === 'subscriptions/listen')!;
    const first = requests.find((r) => r.method === 'tools/list')!;
    expect(listen.params.notifications).toEqual({ toolsListChanged: true });
    reply(first, { tools: [tool('a')], ttlMs: 60_000, cacheScope: 'public' });
    acknowledge(modern, listen);
    const second = await nextRequest();
    expect(second.method).toBe('tools/list');
    reply(second, { tools: [tool('a')], ttlMs: 60_000, cacheScope: 'public' });
    onStream(modern, listen, 'notifications/tools/list_changed');
    const third = await nextRequest();
    reply(third, { tools: [tool('a'), tool('b')], ttlMs: 60_000, cacheScope: 'public' });
    expect((await lists).map((list) => list.map((t) => t.name))).toEqual([['a'], ['a'], ['a', 'b']]);
  });

  it('[caching.ttl] serves a fresh list from the cache and fetches again for a subscriber that comes after ttlMs', async () => {
    const scheduler = new VirtualTimeScheduler();
    modern = await modernPeer({ scheduler }, { prompts: {} });
    const { client, nextRequest, reply } = modern;
    const first = firstValueFrom(client.prompts$);
    const requests = [await nextRequest(), await nextRequest()];
    const listen = requests.find((r) => r.method === 'subscriptions/listen')!;
    reply(
      requests.find((r) => r.method === 'prompts/list')!,
      { prompts: [{ name: 'p1' }], ttlMs: 1000, cacheScope: 'private' },
    );
    expect((await first).map((p) => p.name)).toEqual(['p1']);
    // The server honours nothing: no prompts list change is acknowledged, so only the TTL refreshes.
    acknowledge(modern, listen, {});
    await flush();
    await expect(firstValueFrom(client.prompts$)).resolves.toEqual([{ name: 'p1' }]);
    scheduler.schedule(() => undefined, 1000);
    scheduler.flush();
    const refreshed = firstValueFrom(client.prompts$.pipe(skip(1)));
    const again = await nextRequest();
    expect(again.method).toBe('prompts/list');
    reply(again, { prompts: [{ name: 'p2' }], ttlMs: 1000, cacheScope: 'private' });
    expect((await refreshed).map((p) => p.name)).toEqual(['p2']);
  });

  it('[subscriptions.resource] watchResource adds the URI to the listen filter, reads after the acknowledgement and on each update', async () => {
    modern = await modernPeer({}, { resources: { subscribe: true } });
    const { client, nextRequest, reply } = modern;
    const contents = firstValueFrom(client.watchResource('file:///a').pipe(take(2), toArray()));
    const listen = await nextRequest();
    expect(listen).toMatchObject({
      method: 'subscriptions/listen',
      params: { notifications: { resourceSubscriptions: ['file:///a'] } },
    });
    acknowledge(modern, listen);
    const read1 = await nextRequest();
    expect(read1).toMatchObject({ method: 'resources/read', params: { uri: 'file:///a' } });
    reply(read1, { contents: [{ uri: 'file:///a', text: 'v1' }], ttlMs: 0, cacheScope: 'private' });
    onStream(modern, listen, 'notifications/resources/updated', { uri: 'file:///b' });
    onStream(modern, listen, 'notifications/resources/updated', { uri: 'file:///a' });
    const read2 = await nextRequest();
    reply(read2, { contents: [{ uri: 'file:///a', text: 'v2' }], ttlMs: 0, cacheScope: 'private' });
    expect((await contents).map((c) => c.contents[0])).toEqual([
      { uri: 'file:///a', text: 'v1' },
      { uri: 'file:///a', text: 'v2' },
    ]);
  });

  it('[subscriptions.refilter] opens a stream with the new filter when watchers change, and closes the old one once acknowledged', async () => {
    modern = await modernPeer({}, { resources: { subscribe: true } });
    const { client, nextRequest, reply, peer } = modern;
    const a = client.watchResource('file:///a').subscribe();
    const listen1 = await nextRequest();
    acknowledge(modern, listen1);
    reply(await nextRequest(), { contents: [], ttlMs: 0, cacheScope: 'private' });
    const b = client.watchResource('file:///b').subscribe();
    const listen2 = await nextRequest();
    expect(listen2.params.notifications).toEqual({ resourceSubscriptions: ['file:///a', 'file:///b'] });
    acknowledge(modern, listen2);
    // Over a shared channel the old stream is cancelled by notification; only b is read (a was already listened to).
    const cancelled = await peer.nextMatching((f) => f.method === 'notifications/cancelled');
    expect(cancelled.params).toMatchObject({ requestId: listen1.id });
    const readB = await nextRequest();
    expect(readB.params.uri).toBe('file:///b');
    reply(readB, { contents: [], ttlMs: 0, cacheScope: 'private' });
    await flush();
    a.unsubscribe();
    b.unsubscribe();
    const cancelledLast = await peer.nextMatching((f) => f.method === 'notifications/cancelled');
    expect(cancelledLast.params).toMatchObject({ requestId: listen2.id });
  });

  it('[subscriptions.reopen] opens a listen stream that broke again after a pause, and reads what it watches again', async () => {
    const scheduler = new VirtualTimeScheduler();
    modern = await modernPeer({ scheduler }, { resources: { subscribe: true } });
    const { client, nextRequest, reply, fail } = modern;
    const contents = firstValueFrom(client.watchResource('file:///a').pipe(take(2), toArray()));
    const listen1 = await nextRequest();
    acknowledge(modern, listen1);
    reply(await nextRequest(), { contents: [{ uri: 'file:///a', text: 'v1' }], ttlMs: 0, cacheScope: 'private' });
    await flush();
    fail(listen1, -32000, 'The HTTP response stream ended before the response', { streamBroken: true });
    await flush();
    // Nothing is sent again before the pause is over.
    const listens = () =>
      modern!.peer.received.filter((f) => (f as { method?: string }).method === 'subscriptions/listen');
    expect(listens()).toHaveLength(1);
    scheduler.flush();
    const listen2 = await nextRequest();
    expect(listen2).toMatchObject({
      method: 'subscriptions/listen',
      params: { notifications: { resourceSubscriptions: ['file:///a'] } },
    });
    expect(listen2.id).not.toEqual(listen1.id);
    acknowledge(modern, listen2);
    reply(await nextRequest(), { contents: [{ uri: 'file:///a', text: 'v2' }], ttlMs: 0, cacheScope: 'private' });
    expect((await contents).map((c) => c.contents[0])).toEqual([
      { uri: 'file:///a', text: 'v1' },
      { uri: 'file:///a', text: 'v2' },
    ]);
  });

  it('[subscriptions.close] closing the client while a stream listens leaves no re-open waiting', async () => {
    const scheduler = new VirtualTimeScheduler();
    modern = await modernPeer({ scheduler }, { tools: { listChanged: true } });
    const { client, nextRequest, reply } = modern;
    const watching = client.tools$.subscribe({ error: () => undefined });
    const requests = [await nextRequest(), await nextRequest()];
    const listen = requests.find((r) => r.method === 'subscriptions/listen')!;
    reply(
      requests.find((r) => r.method === 'tools/list')!,
      { tools: [tool('a')], ttlMs: 60_000, cacheScope: 'public' },
    );
    acknowledge(modern, listen);
    await flush();
    // Closing fails the listen request before the client hears of the close.
    client.close();
    await flush();
    expect(scheduler.actions).toHaveLength(0);
    watching.unsubscribe();
  });

  it('[subscriptions.refused] errors a watcher whose URI the server left out of its acknowledgement', async () => {
    modern = await modernPeer({}, { resources: { subscribe: true } });
    const { client, nextRequest } = modern;
    const watching = firstValueFrom(client.watchResource('file:///secret'));
    const listen = await nextRequest();
    acknowledge(modern, listen, {});
    await expect(watching).rejects.toBeInstanceOf(CapabilityNotSupportedError);
  });

  it('[subscriptions.unsupported] a server without subscriptions/listen fails watchers with its error; lists still work', async () => {
    modern = await modernPeer({}, { tools: {}, resources: { subscribe: true } });
    const { client, nextRequest, reply, fail } = modern;
    const watching = firstValueFrom(client.watchResource('file:///a'));
    fail(await nextRequest(), -32601, 'Method not found: subscriptions/listen');
    await expect(watching).rejects.toThrow(/subscriptions\/listen/);
    const tools = firstValueFrom(client.tools$);
    const list = await nextRequest();
    expect(list.method).toBe('tools/list');
    reply(list, { tools: [tool('x')], ttlMs: 0, cacheScope: 'public' });
    await expect(tools).resolves.toEqual([tool('x')]);
  });

  it('[subscriptions.capability] refuses to watch without resources.subscribe, sending nothing', async () => {
    modern = await modernPeer({}, { resources: {} });
    const { client, peer } = modern;
    const before = peer.received.length;
    await expect(firstValueFrom(client.watchResource('file:///a'))).rejects.toBeInstanceOf(CapabilityNotSupportedError);
    expect(peer.received.length).toBe(before);
  });
});
