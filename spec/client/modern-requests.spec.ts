import { EmptyError, filter, lastValueFrom, toArray, VirtualTimeScheduler } from 'rxjs';
import type { ClientMiddleware } from '../../lib/client/middleware';
import { InputRoundsExceededError, REISSUE_DELAYS_MS } from '../../lib/client/modern-requests';
import { JsonRpcError, ProtocolError } from '../../lib/jsonrpc/errors';
import { STREAM_BROKEN } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { modernPeer } from './modern-peer';
import type { ModernPeer } from './modern-peer';
import { advanceTo } from '../support/virtual-time';

const META = 'io.modelcontextprotocol';
const confirmForm = {
  method: 'elicitation/create',
  params: { message: 'Confirm?', requestedSchema: { type: 'object', properties: { confirmed: { type: 'boolean' } } } },
};
const accept = () => ({ action: 'accept' as const, content: { confirmed: true } });

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** How many requests the client has sent the peer. */
function requestsSent(peer: ModernPeer['peer']): number {
  return peer.received.filter(
    (frame) => typeof frame === 'object' && frame !== null && 'id' in frame && 'method' in frame,
  ).length;
}

describe('modern requests', () => {
  let modern: ModernPeer | undefined;
  afterEach(() => modern?.client.close());

  it('[mrtr.round-trip] answers input requests with the handlers and retries with a new id, inputResponses and the exact requestState', async () => {
    modern = await modernPeer({
      elicitation: accept,
      sampling: (params) => ({
        role: 'assistant',
        content: { type: 'text', text: `re: ${String(params.maxTokens)}` },
        model: 'm',
      }),
      roots: [{ uri: 'file:///work', name: 'work' }],
    });
    const { client, nextRequest, reply } = modern;
    const events = lastValueFrom(client.callTool('deploy', { env: 'prod' }).pipe(toArray()));
    const first = await nextRequest();
    expect(first.params).toMatchObject({ name: 'deploy', arguments: { env: 'prod' } });
    expect(first.params).not.toHaveProperty('inputResponses');
    const state = ' {"opaque": "state\\u0000"} ';
    const sample = {
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 7 },
    };
    reply(first, {
      resultType: 'input_required',
      inputRequests: { confirm: confirmForm, ask: sample, where: { method: 'roots/list' } },
      requestState: state,
    });
    const retry = await nextRequest();
    expect(retry.id).not.toEqual(first.id);
    expect(retry.method).toBe('tools/call');
    expect(retry.params).toMatchObject({
      name: 'deploy',
      arguments: { env: 'prod' },
      requestState: state,
      inputResponses: {
        confirm: { action: 'accept', content: { confirmed: true } },
        ask: { role: 'assistant', content: { type: 'text', text: 're: 7' }, model: 'm' },
        where: { roots: [{ uri: 'file:///work', name: 'work' }] },
      },
    });
    expect((retry.params._meta as Record<string, unknown>)[`${META}/protocolVersion`]).toBe('2026-07-28');
    reply(retry, { content: [{ type: 'text', text: 'done' }] });
    expect(await events).toEqual([
      {
        type: 'input_required',
        round: 1,
        requests: { confirm: confirmForm, ask: sample, where: { method: 'roots/list' } },
      },
      { type: 'result', result: { content: [{ type: 'text', text: 'done' }] } },
    ]);
  });

  it('[mrtr.no-state] sends no requestState when the server sent none, and rounds continue until complete', async () => {
    modern = await modernPeer({ elicitation: accept });
    const { client, nextRequest, reply } = modern;
    const result = client.promises.callTool('ask-twice');
    const r1 = await nextRequest();
    reply(r1, { resultType: 'input_required', inputRequests: { a: confirmForm } });
    const r2 = await nextRequest();
    expect(r2.params).not.toHaveProperty('requestState');
    reply(r2, { resultType: 'input_required', requestState: 'only-state' });
    const r3 = await nextRequest();
    // State only: retried at once, with no inputResponses.
    expect(r3.params.requestState).toBe('only-state');
    expect(r3.params).not.toHaveProperty('inputResponses');
    reply(r3, { content: [] });
    await expect(result).resolves.toEqual({ content: [] });
    expect(new Set([r1.id, r2.id, r3.id]).size).toBe(3);
  });

  it('[mrtr.isolation] never carries one call’s inputResponses or requestState into another request', async () => {
    modern = await modernPeer({ elicitation: accept });
    const { client, nextRequest, reply } = modern;
    const first = client.promises.callTool('a');
    const r1 = await nextRequest();
    reply(r1, { resultType: 'input_required', inputRequests: { c: confirmForm }, requestState: 's' });
    const r2 = await nextRequest();
    const other = client.promises.callTool('b');
    const unrelated = await nextRequest();
    expect(unrelated.params).toEqual({ name: 'b', arguments: {}, _meta: expect.any(Object) });
    reply(unrelated, { content: [] });
    reply(r2, { content: [] });
    await Promise.all([first, other]);
  });

  it('[mrtr.bounded] fails with InputRoundsExceededError once the server asked maxInputRounds times', async () => {
    modern = await modernPeer({ elicitation: accept, maxInputRounds: 2 });
    const { client, nextRequest, reply } = modern;
    const result = client.promises.callTool('never-enough');
    for (let round = 0; round < 3; round++) {
      reply(await nextRequest(), { resultType: 'input_required', inputRequests: { c: confirmForm } });
    }
    await expect(result).rejects.toBeInstanceOf(InputRoundsExceededError);
    await expect(result).rejects.toThrow(/after 2 rounds/);
  });

  it('[mrtr.prompts-resources] handles input_required for prompts/get and resources/read too', async () => {
    modern = await modernPeer({ elicitation: accept });
    const { client, nextRequest, reply } = modern;
    const prompt = client.promises.getPrompt('p');
    const p1 = await nextRequest();
    reply(p1, { resultType: 'input_required', inputRequests: { c: confirmForm } });
    reply(await nextRequest(), { messages: [] });
    await expect(prompt).resolves.toEqual({ messages: [] });
    const read = client.promises.readResource('file:///x');
    const q1 = await nextRequest();
    reply(q1, { resultType: 'input_required', requestState: 'r' });
    const q2 = await nextRequest();
    expect(q2.params).toMatchObject({ uri: 'file:///x', requestState: 'r' });
    reply(q2, { contents: [], ttlMs: 0, cacheScope: 'private' });
    await expect(read).resolves.toEqual({ contents: [], ttlMs: 0, cacheScope: 'private' });
  });

  it('[result-type.absent] treats a result without resultType as complete, and drops the wire-only fields', async () => {
    modern = await modernPeer();
    const { client, nextRequest, peer } = modern;
    const result = client.promises.callTool('t');
    const call = await nextRequest();
    peer.send({
      jsonrpc: '2.0',
      id: call.id,
      result: { content: [], _meta: { [`${META}/serverInfo`]: { name: 's', version: '1' }, x: 1 } },
    });
    await expect(result).resolves.toEqual({ content: [], _meta: { x: 1 } });
  });

  it.each([
    ['an unknown resultType', 'tools/call', { resultType: 'pending', content: [] }, /unknown resultType "pending"/],
    [
      'input_required on tools/list',
      'tools/list',
      { resultType: 'input_required', requestState: 's' },
      /tools\/list may not ask for input/,
    ],
    [
      'an input request of another method',
      'tools/call',
      { resultType: 'input_required', inputRequests: { x: { method: 'tools/call', params: {} } } },
      /inputRequests\.x asks for tools\/call/,
    ],
    [
      'input_required with nothing to answer',
      'tools/call',
      { resultType: 'input_required' },
      /neither inputRequests nor requestState/,
    ],
    [
      'a requestState that is no string',
      'tools/call',
      { resultType: 'input_required', requestState: 7 },
      /requestState must be a string/,
    ],
  ])('[result-type.invalid] fails the call with a ProtocolError for %s', async (_what, method, result, message) => {
    modern = await modernPeer();
    const { client, nextRequest, reply } = modern;
    const call = method === 'tools/list' ? client.promises.listTools() : client.promises.callTool('t');
    reply(await nextRequest(), result);
    await expect(call).rejects.toBeInstanceOf(ProtocolError);
    await expect(call).rejects.toThrow(message);
    // The connection goes on.
    expect(client.state).toBe('operating');
  });

  it('[mrtr.no-handler] fails the call, naming the request, when the client has no handler for what the server asks', async () => {
    modern = await modernPeer();
    const { client, nextRequest, reply } = modern;
    const call = client.promises.callTool('t');
    reply(await nextRequest(), { resultType: 'input_required', inputRequests: { confirm: confirmForm } });
    await expect(call).rejects.toThrow(
      /elicitation\/create \(input request confirm\), which this client does not answer/,
    );
  });

  it('[mrtr.invalid-input-request] fails the call when an input request’s params are invalid, without calling the handler', async () => {
    const seen: unknown[] = [];
    modern = await modernPeer({
      sampling: (params) => (seen.push(params), { role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }),
    });
    const { client, nextRequest, reply } = modern;
    const call = client.promises.callTool('t');
    reply(await nextRequest(), {
      resultType: 'input_required',
      inputRequests: { s: { method: 'sampling/createMessage', params: { maxTokens: 'many' } } },
    });
    await expect(call).rejects.toThrow(/Invalid input request s \(sampling\/createMessage\)/);
    expect(seen).toEqual([]);
  });

  it('[mrtr.cancel] unsubscribing while a handler answers aborts it and sends nothing more', async () => {
    let signal: AbortSignal | undefined;
    modern = await modernPeer({
      elicitation: (_params, context) => {
        signal = context.signal;
        return new Promise(() => undefined);
      },
    });
    const { client, nextRequest, reply, peer } = modern;
    const subscription = client.callTool('t').subscribe();
    reply(await nextRequest(), { resultType: 'input_required', inputRequests: { c: confirmForm } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(signal?.aborted).toBe(false);
    const before = peer.received.length;
    subscription.unsubscribe();
    expect(signal?.aborted).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(peer.received.length).toBe(before);
  });

  it('[http.reissue] re-issues a request whose response stream broke, with a new id, after a delay, and gives up after two re-issues', async () => {
    const scheduler = new VirtualTimeScheduler();
    modern = await modernPeer({ scheduler });
    const { client, nextRequest, fail, reply, peer } = modern;
    const broken = { [STREAM_BROKEN]: true };
    const listing = client.promises.listTools();
    const r1 = await nextRequest();
    fail(r1, -32000, 'stream ended', broken);
    await settle();
    const sent = requestsSent(peer);
    advanceTo(scheduler, REISSUE_DELAYS_MS[0]! - 1);
    await settle();
    expect(requestsSent(peer)).toBe(sent);
    advanceTo(scheduler, REISSUE_DELAYS_MS[0]!);
    const r2 = await nextRequest();
    expect(r2.id).not.toEqual(r1.id);
    expect(r2.method).toBe('tools/list');
    reply(r2, { tools: [], ttlMs: 0, cacheScope: 'public' });
    await expect(listing).resolves.toEqual([]);
    const call = client.promises.callTool('t');
    fail(await nextRequest(), -32000, 'stream ended', broken);
    for (const delay of REISSUE_DELAYS_MS) {
      await settle();
      advanceTo(scheduler, scheduler.now() + delay);
      fail(await nextRequest(), -32000, 'stream ended', broken);
    }
    await expect(call).rejects.toBeInstanceOf(JsonRpcError);
  });

  it('[http.reissue] a request stopped while it waits to be re-issued is not sent again', async () => {
    const scheduler = new VirtualTimeScheduler();
    modern = await modernPeer({ scheduler });
    const { client, nextRequest, fail, peer } = modern;
    const call = client.callTool('t').subscribe();
    fail(await nextRequest(), -32000, 'stream ended', { [STREAM_BROKEN]: true });
    await settle();
    const sent = requestsSent(peer);
    call.unsubscribe();
    advanceTo(scheduler, scheduler.now() + REISSUE_DELAYS_MS[REISSUE_DELAYS_MS.length - 1]!);
    await settle();
    expect(requestsSent(peer)).toBe(sent);
  });

  it('[mrtr.cancel-later] unsubscribing cancels the request in flight, whether a later round or a re-issue', async () => {
    const scheduler = new VirtualTimeScheduler();
    modern = await modernPeer({ roots: [{ uri: 'file:///work', name: 'work' }], scheduler });
    const { client, nextRequest, reply, fail, peer } = modern;
    const cancelled = () =>
      peer.received
        .filter((frame) => (frame as { method?: string }).method === 'notifications/cancelled')
        .map((frame) => (frame as { params: { requestId: unknown } }).params.requestId);
    const rounds = client.callTool('t').subscribe();
    const first = await nextRequest();
    // Answered at once by the roots the client holds: the second round goes out in the same turn.
    reply(first, { resultType: 'input_required', inputRequests: { where: { method: 'roots/list' } } });
    const second = await nextRequest();
    expect(second.params).toHaveProperty('inputResponses');
    rounds.unsubscribe();
    await new Promise((resolve) => setImmediate(resolve));
    expect(cancelled()).toEqual([second.id]);

    const reissued = client.callTool('t').subscribe();
    fail(await nextRequest(), -32000, 'stream ended', { [STREAM_BROKEN]: true });
    await settle();
    advanceTo(scheduler, REISSUE_DELAYS_MS[0]!);
    const again = await nextRequest();
    reissued.unsubscribe();
    await new Promise((resolve) => setImmediate(resolve));
    expect(cancelled()).toEqual([second.id, again.id]);
  });

  it('[middleware.empty] a round that client middleware ends without a result ends the request without one', async () => {
    const swallow: ClientMiddleware = (request, _context, next) =>
      request.method === 'tools/call' ? next(request).pipe(filter(() => false)) : next(request);
    modern = await modernPeer({ middleware: [swallow] });
    const { client, nextRequest, reply } = modern;
    const call = client.promises.callTool('t');
    reply(await nextRequest(), { content: [{ type: 'text', text: 'swallowed' }] });
    await expect(call).rejects.toBeInstanceOf(EmptyError);
    const read = client.promises.readResource('file:///a');
    reply(await nextRequest(), { contents: [], ttlMs: 0, cacheScope: 'private' });
    await expect(read).resolves.toMatchObject({ contents: [] });
  });

  it('[logging.meta] setLoggingLevel sends nothing; later requests carry the level in _meta', async () => {
    modern = await modernPeer();
    const { client, nextRequest, reply, peer } = modern;
    await client.promises.setLoggingLevel('warning');
    const listing = client.promises.listPrompts();
    const list = await nextRequest();
    expect(peer.received.filter((f) => (f as { method?: string }).method === 'logging/setLevel')).toEqual([]);
    expect((list.params._meta as Record<string, unknown>)[`${META}/logLevel`]).toBe('warning');
    reply(list, { prompts: [], ttlMs: 0, cacheScope: 'public' });
    await listing;
  });

  it('[ping.modern] pings with server/discover, the modern revisions having no ping', async () => {
    modern = await modernPeer();
    const { client, nextRequest, reply } = modern;
    const pinging = client.promises.ping();
    const ping = await nextRequest();
    expect(ping.method).toBe('server/discover');
    reply(ping, { supportedVersions: ['2026-07-28'], capabilities: {}, ttlMs: 0, cacheScope: 'public' });
    await pinging;
  });

  it('[roots.modern] setRoots sends no notification; the next roots/list input request gets the new roots', async () => {
    modern = await modernPeer({ roots: [] });
    const { client, nextRequest, reply, peer } = modern;
    client.setRoots([{ uri: 'file:///new' }]);
    const call = client.promises.callTool('t');
    const r1 = await nextRequest();
    reply(r1, { resultType: 'input_required', inputRequests: { r: { method: 'roots/list' } } });
    const r2 = await nextRequest();
    expect(r2.params.inputResponses).toEqual({ r: { roots: [{ uri: 'file:///new' }] } });
    reply(r2, { content: [] });
    await call;
    expect(
      peer.received.filter((f) => (f as { method?: string }).method === 'notifications/roots/list_changed'),
    ).toEqual([]);
  });

  it('[capabilities.modern] declares roots without listChanged in _meta', async () => {
    modern = await modernPeer({ roots: [] });
    const { client, nextRequest, reply } = modern;
    const listing = client.promises.listTools();
    const list = await nextRequest();
    expect((list.params._meta as Record<string, unknown>)[`${META}/clientCapabilities`]).toEqual({ roots: {} });
    reply(list, { tools: [], ttlMs: 0, cacheScope: 'public' });
    await listing;
  });
});
