import { request as httpRequest } from 'node:http';
import pino from 'pino';
import { firstValueFrom } from 'rxjs';
import { createInMemoryEventStore } from '../../../lib/transport/http-server/streamable-http/event-store';
import type { StreamableHttpServerTransport } from '../../../lib/transport/http-server/streamable-http/streamable-http-session';
import {
  ACCEPT_BOTH,
  answerMessages,
  initializeBody,
  messagesOf,
  openSession,
  post,
  rawPost,
  readSse,
  startTestServer,
  toolCall,
} from './http-kit';
import type { TestHttpServer } from './http-kit';

let server: TestHttpServer | undefined;
const start = async (options: Parameters<typeof startTestServer>[0] = {}): Promise<TestHttpServer> => {
  server = await startTestServer(options);
  return server;
};
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const waitFor = async (condition: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
};

describe('createStreamableHttpHandler: sessions and streams', () => {
  it('[transport.http.session] answers initialize with a session id and one JSON body when the result is all there is to say', async () => {
    const { url } = await start();
    const response = await post(url, initializeBody());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('mcp-session-id')).toMatch(/^[\x21-\x7e]{16,}$/);
    expect(await response.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: '2025-11-25', serverInfo: { name: 'http-test' } },
    });
  });

  it('[transport.http.session] answers initialize on an SSE stream with a session id, a priming event and the result when jsonWindowMs is 0', async () => {
    const { url } = await start({ retryMs: 500, jsonWindowMs: 0 });
    const response = await post(url, initializeBody());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const sessionId = response.headers.get('mcp-session-id') ?? '';
    expect(sessionId).toMatch(/^[\x21-\x7e]{16,}$/);
    const events = await readSse(response);
    expect(events[0]).toEqual({ id: expect.any(String), retry: 500, data: '' });
    const [result] = messagesOf(events);
    expect(result).toMatchObject({
      id: 1,
      result: { protocolVersion: '2025-11-25', serverInfo: { name: 'http-test' } },
    });
    expect(events[1]?.id).toEqual(expect.any(String));
  });

  it('[transport.http.202] answers notifications and responses with 202 and no body', async () => {
    const { url } = await start();
    const sessionId = await openSession(url);
    const response = await post(
      url,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } },
      { 'mcp-session-id': sessionId },
    );
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
    const answer = await post(url, { jsonrpc: '2.0', id: 5, result: {} }, { 'mcp-session-id': sessionId });
    expect(answer.status).toBe(202);
  });

  it('[transport.http.sse-related] sends logs and progress of a call on that call’s POST stream, then ends it', async () => {
    const { url } = await start();
    const sessionId = await openSession(url);
    const response = await post(url, toolCall(7, 'chatty', {}, { progressToken: 'tok' }), {
      'mcp-session-id': sessionId,
    });
    const messages = messagesOf(await readSse(response));
    expect(messages.map((m) => m.method ?? `result ${String(m.id)}`)).toEqual([
      'notifications/message',
      'notifications/progress',
      'notifications/message',
      'notifications/progress',
      'result 7',
    ]);
    expect(messages[1]).toMatchObject({ params: { progressToken: 'tok', progress: 1, total: 2 } });
  });

  it('answers with one JSON body in enableJsonResponse mode', async () => {
    const { url } = await start({ enableJsonResponse: true });
    const init = await post(url, initializeBody(), { accept: 'application/json' });
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toBe('application/json');
    expect(await init.json()).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
  });

  it('[transport.http.get] delivers unrelated server messages on the GET stream, holding them until it opens', async () => {
    const s = await start({ eventStore: false });
    const sessionId = await openSession(s.url);
    const connection = s.connections[0]!;
    connection.notify('notifications/tools/list_changed');
    const get = await fetch(s.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
    expect(get.status).toBe(200);
    const second = await fetch(s.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
    expect(second.status).toBe(409);
    connection.notify('notifications/resources/list_changed');
    const messages = messagesOf(await readSse(get, (events) => events.length >= 2));
    expect(messages.map((m) => m.method)).toEqual([
      'notifications/tools/list_changed',
      'notifications/resources/list_changed',
    ]);
  });

  it('[transport.http.delete] ends a session on DELETE (200), then answers 404 for it', async () => {
    const s = await start();
    const sessionId = await openSession(s.url);
    expect(s.running.handler.sessions.size).toBe(1);
    const closed = firstValueFrom(s.connections[0]!.closed$);
    const deleted = await fetch(s.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    expect(deleted.status).toBe(200);
    expect((await closed).reason).toMatch(/deleted/);
    expect(s.running.handler.sessions.size).toBe(0);
    expect((await post(s.url, toolCall(2, 'echo'), { 'mcp-session-id': sessionId })).status).toBe(404);
    expect((await fetch(s.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } })).status).toBe(
      404,
    );
    expect((await fetch(s.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } })).status).toBe(404);
  });

  it('gives the server transport the revision its connection negotiated', async () => {
    const seen: StreamableHttpServerTransport[] = [];
    const s = await start({ onSession: (t) => seen.push(t) });
    expect(seen).toHaveLength(0);
    await openSession(s.url, '2025-06-18');
    expect(seen[0]!.protocolVersion).toBe('2025-06-18');
    expect(seen[0]!.sessionId).toBe([...s.running.handler.sessions.keys()][0]);
  });

  it('[transport.http.fresh-initialize] always accepts a new initialize without a session id', async () => {
    const s = await start();
    const first = await openSession(s.url);
    const second = await openSession(s.url);
    expect(first).not.toBe(second);
    expect(s.running.handler.sessions.size).toBe(2);
  });

  it('ends the session when the server closes its transport; the client then gets 404', async () => {
    const s = await start();
    const sessionId = await openSession(s.url);
    s.connections[0]!.close('server done');
    expect(s.running.handler.sessions.size).toBe(0);
    expect((await post(s.url, toolCall(2, 'echo'), { 'mcp-session-id': sessionId })).status).toBe(404);
  });

  it('[transport.http.protocol-version] tolerates a supported version other than the negotiated one on concurrent streams', async () => {
    const { url } = await start();
    const sessionId = await openSession(url, '2025-11-25');
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-03-26' };
    const responses = await Promise.all(
      [1000, 1001, 1002].map((id) => post(url, { jsonrpc: '2.0', id, method: 'tools/list' }, headers)),
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    const results = await Promise.all(responses.map(async (r) => (await answerMessages(r))[0]?.id));
    expect(results).toEqual([1000, 1001, 1002]);
  });

  it('[transport.http.sessionless] serves a request without initialize or session in sessionless mode, and keeps nothing', async () => {
    const seen: StreamableHttpServerTransport[] = [];
    const s = await start({ sessionless: true, onSession: (t) => seen.push(t) });
    const response = await post(s.url, toolCall(3, 'echo', { text: 'hi' }), { 'mcp-protocol-version': '2025-06-18' });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const messages = await answerMessages(response);
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'hi' }] } }]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.sessionId).toBeUndefined();
    // The session starts initialized with the header's revision: no handshake is run for it.
    expect(seen[0]!.impliedInitialize).toEqual({
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'sessionless-client', version: '0.0.0' },
    });
    expect(s.connections[0]!.peerInfo).toEqual({ name: 'sessionless-client', version: '0.0.0' });
    await firstValueFrom(seen[0]!.closed$);
    expect(s.connections[0]!.state).toBe('shutdown');
    expect(s.connections[0]!.revision).toBe('2025-06-18');
    expect((await fetch(s.url, { headers: { accept: 'text/event-stream' } })).status).toBe(405);
    expect((await fetch(s.url, { method: 'DELETE' })).status).toBe(405);
    // A real initialize also works, answered by the server itself.
    const init = await post(s.url, initializeBody(9));
    expect((await answerMessages(init))[0]).toMatchObject({ id: 9, result: { serverInfo: { name: 'http-test' } } });
  });

  it('closes a sessionless request’s transport, cancelling its work, when the client disconnects mid-stream', async () => {
    const seen: StreamableHttpServerTransport[] = [];
    const s = await start({ sessionless: true, onSession: (t) => seen.push(t) });
    const abort = new AbortController();
    // Nothing is sent before the response: the answer's headers wait for it.
    const response = post(s.url, toolCall(4, 'slow', { ms: 10_000 }), {}, abort.signal);
    await waitFor(() => (s.connections[0]?.inFlightRequests ?? 0) === 1, 'the call to start');
    abort.abort();
    await expect(response).rejects.toThrow();
    expect((await firstValueFrom(seen[0]!.closed$)).reason).toBe('client disconnected');
    expect(s.connections[0]!.inFlightRequests).toBe(0);
  });
});

/** A POST over node:http (which runs under fake timers): resolves with the status, content type and body once the answer ends. */
function nodePost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: text }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('createStreamableHttpHandler: JSON or SSE answers', () => {
  it('[transport.http.answer-json] answers a call whose response comes first with one JSON body, storing no event', async () => {
    const eventStore = createInMemoryEventStore();
    const s = await start({ eventStore });
    const sessionId = await openSession(s.url);
    const stored = eventStore.size;
    const response = await post(s.url, toolCall(2, 'echo', { text: 'hi' }), { 'mcp-session-id': sessionId });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('mcp-session-id')).toBe(sessionId);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'hi' }] },
    });
    expect(eventStore.size).toBe(stored);
  });

  it('[transport.http.answer-sse] opens the SSE stream, priming event first, when a notification goes before the response', async () => {
    const s = await start({ retryMs: 300 });
    const sessionId = await openSession(s.url);
    const response = await post(s.url, toolCall(3, 'chatty', {}, { progressToken: 1 }), {
      'mcp-session-id': sessionId,
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('mcp-session-id')).toBe(sessionId);
    const events = await readSse(response);
    expect(events[0]).toEqual({ id: expect.any(String), retry: 300, data: '' });
    expect(messagesOf(events).map((m) => m.method ?? m.id)).toEqual([
      'notifications/message',
      'notifications/progress',
      'notifications/message',
      'notifications/progress',
      3,
    ]);
  });

  it('[transport.http.answer-window] opens the primed SSE stream once a call has been silent for jsonWindowMs', async () => {
    const s = await start({ jsonWindowMs: 30 });
    const sessionId = await openSession(s.url);
    const response = await post(s.url, toolCall(4, 'gate', { gate: 'w' }), { 'mcp-session-id': sessionId });
    // The headers came while the call still waits at its gate.
    expect(s.connections[0]!.inFlightRequests).toBe(1);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    s.release('w');
    const events = await readSse(response);
    expect(events[0]).toMatchObject({ id: expect.any(String), data: '' });
    expect(messagesOf(events)).toEqual([
      expect.objectContaining({ id: 4, result: { content: [{ type: 'text', text: 'gate w passed' }] } }),
    ]);
  });

  it('[transport.http.answer-sessionless] waits for the response however long it takes in sessionless mode, and answers JSON', async () => {
    const s = await start({ sessionless: true });
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'performance', 'hrtime'] });
    try {
      const answer = nodePost(s.url, toolCall(5, 'gate', { gate: 'st' }), { 'mcp-protocol-version': '2025-06-18' });
      await waitForReal(() => (s.connections[0]?.inFlightRequests ?? 0) === 1);
      jest.advanceTimersByTime(10 * 60_000);
      s.release('st');
      const { status, type, body } = await answer;
      expect([status, type]).toEqual([200, 'application/json']);
      expect(JSON.parse(body)).toMatchObject({
        id: 5,
        result: { content: [{ type: 'text', text: 'gate st passed' }] },
      });
    } finally {
      jest.useRealTimers();
    }
  });

  it('[transport.http.answer-cut-first] streams a call that closes its stream before saying anything: priming, retry, end; the response comes on resume', async () => {
    const s = await start({ retryMs: 40 });
    const sessionId = await openSession(s.url);
    const response = await post(s.url, toolCall(6, 'cut-first', { gate: 'cf' }), { 'mcp-session-id': sessionId });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = await readSse(response);
    expect(events).toEqual([{ id: expect.any(String), retry: 40, data: '' }]);
    s.release('cf');
    await waitFor(() => s.connections[0]!.inFlightRequests === 0, 'the call to finish');
    const resumed = await fetch(s.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'last-event-id': events[0]!.id! },
    });
    expect(messagesOf(await readSse(resumed))).toEqual([
      expect.objectContaining({ id: 6, result: { content: [{ type: 'text', text: 'cut-first done' }] } }),
    ]);
  });

  it('[transport.http.answer-batch] answers a 2025-03-26 batch of calls with one JSON array when the responses come together', async () => {
    const s = await start();
    const sessionId = await openSession(s.url, '2025-03-26');
    const response = await post(s.url, [toolCall(7, 'echo', { text: 'a' }), toolCall(8, 'echo', { text: 'b' })], {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-03-26',
    });
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as Array<{ id: number }>;
    expect(body.map((m) => m.id).sort()).toEqual([7, 8]);
  });

  it('[transport.http.batch-refused] refuses a batch with 400 in a session of a revision without batches, running none of it', async () => {
    const s = await start();
    for (const revision of ['2025-06-18', '2025-11-25']) {
      const sessionId = await openSession(s.url, revision);
      const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': revision };
      const response = await post(
        s.url,
        [toolCall(7, 'gate', { gate: 'b1' }), toolCall(8, 'echo', { text: 'b' })],
        headers,
      );
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        id: null,
        error: { code: -32600, message: expect.stringContaining(`not supported by protocol revision ${revision}`) },
      });
      expect(s.connections.every((connection) => connection.inFlightRequests === 0)).toBe(true);
      // The session goes on: one call at a time is answered.
      const single = await post(s.url, toolCall(9, 'echo', { text: 'one' }), headers);
      expect((await answerMessages(single))[0]).toMatchObject({ id: 9, result: { content: [{ text: 'one' }] } });
    }
  });

  it('refuses a sessionless batch with 400 under a revision without batches, and answers one under 2025-03-26', async () => {
    const sessionless = await start({ sessionless: true });
    const batch = [toolCall(1, 'echo', { text: 'a' }), toolCall(2, 'echo', { text: 'b' })];
    expect((await post(sessionless.url, batch, { 'mcp-protocol-version': '2025-06-18' })).status).toBe(400);
    const accepted = await post(sessionless.url, batch, { 'mcp-protocol-version': '2025-03-26' });
    expect(accepted.status).toBe(200);
    expect(((await answerMessages(accepted)) as Array<{ id: number }>).map((m) => m.id).sort()).toEqual([1, 2]);
  });

  it('[transport.http.answer-session-closed] answers 404 to a call still waiting for its response when the session ends', async () => {
    const s = await start();
    const sessionId = await openSession(s.url);
    const answer = nodePost(s.url, toolCall(9, 'gate', { gate: 'never' }), { 'mcp-session-id': sessionId });
    await waitFor(() => s.connections[0]!.inFlightRequests === 1, 'the call');
    expect((await fetch(s.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } })).status).toBe(200);
    const { status, body } = await answer;
    expect(status).toBe(404);
    expect(JSON.parse(body)).toMatchObject({ id: null, error: { message: expect.stringMatching(/Session closed/) } });
  });
});

describe('createStreamableHttpHandler: bad input', () => {
  it('[transport.http.406] refuses a POST whose Accept lacks text/event-stream or application/json', async () => {
    const { url } = await start();
    const json = await post(url, initializeBody(), { accept: 'application/json' });
    expect(json.status).toBe(406);
    expect(await json.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { message: expect.stringMatching(/Accept/) },
    });
    expect((await post(url, initializeBody(), { accept: 'text/event-stream' })).status).toBe(406);
    expect((await post(url, initializeBody(), { accept: '*/*' })).status).toBe(200);
    const sessionId = await openSession(url);
    expect((await fetch(url, { headers: { accept: 'application/json', 'mcp-session-id': sessionId } })).status).toBe(
      406,
    );
  });

  it('[transport.http.415] refuses a body that is not application/json', async () => {
    const { url } = await start();
    const response = await post(url, JSON.stringify(initializeBody()), { 'content-type': 'text/plain' });
    expect(response.status).toBe(415);
    expect((await post(url, initializeBody(), { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
  });

  it('[transport.http.413] refuses an oversized body, declared or streamed', async () => {
    const { url } = await start({ maxBodyBytes: 1000 });
    const big = JSON.stringify({ ...initializeBody(), padding: 'x'.repeat(2000) });
    expect((await post(url, big)).status).toBe(413);
    // Chunked, with no Content-Length: the limit is enforced while reading.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write(big.slice(0, 800));
      req.end(big.slice(800));
    });
    expect(status).toBe(413);
  });

  it('[transport.http.parse-error] answers unparsable JSON with 400 and -32700, and non-JSON-RPC with 400 and -32600', async () => {
    const { url } = await start();
    const broken = await post(url, '{"jsonrpc": "2.0", ');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ id: null, error: { code: -32700 } });
    for (const body of ['42', '[]', '{"hello":"world"}', '[[]]']) {
      const response = await post(url, body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ id: null, error: { code: -32600 } });
    }
    expect((await post(url, [initializeBody(1), initializeBody(2)])).status).toBe(400);
  });

  it('[transport.http.session-required] answers 400 without a session id and 404 for an unknown one', async () => {
    const { url } = await start();
    expect((await post(url, toolCall(1, 'echo'))).status).toBe(400);
    expect((await fetch(url, { headers: { accept: 'text/event-stream' } })).status).toBe(400);
    expect((await post(url, toolCall(1, 'echo'), { 'mcp-session-id': 'no-such-session' })).status).toBe(404);
    expect((await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'nope' } })).status).toBe(404);
  });

  it('[transport.http.405] refuses other methods with 405 and an Allow header', async () => {
    const { url } = await start();
    const response = await fetch(url, { method: 'PUT', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  it('[transport.http.protocol-version] refuses an unsupported MCP-Protocol-Version with 400', async () => {
    const { url } = await start();
    const sessionId = await openSession(url);
    const response = await post(url, toolCall(2, 'echo'), {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '1999-01-01',
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/unsupported protocol version/);
  });

  it('refuses what cannot be a 2026-07-28 request for what it is, not as an unknown revision', async () => {
    const { url } = await start();
    const sessionId = await openSession(url);
    const modern = { 'mcp-protocol-version': '2026-07-28' };
    const inSession = await post(url, toolCall(3, 'echo'), { ...modern, 'mcp-session-id': sessionId });
    expect(inSession.status).toBe(400);
    expect(await inSession.json()).toMatchObject({
      id: 3,
      error: { message: expect.stringMatching(/2026-07-28 has no sessions: send its requests without Mcp-Session-Id/) },
    });
    const batch = await post(url, [toolCall(4, 'echo'), toolCall(5, 'echo')], modern);
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({
      id: null,
      error: { message: expect.stringMatching(/batches are not supported by protocol revision 2026-07-28/) },
    });
    // A response names no request of the client's: the refusal carries no id.
    const response = await post(url, { jsonrpc: '2.0', id: 6, result: {} }, modern);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      id: null,
      error: { message: expect.stringMatching(/only requests and notifications under protocol revision 2026-07-28/) },
    });
    const stream = await fetch(url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, ...modern },
    });
    expect(stream.status).toBe(400);
    expect(await stream.text()).toMatch(/2026-07-28 has no sessions: GET serves the handshake revisions/);
    // An unknown revision is still refused as one.
    const unknown = await post(url, toolCall(7, 'echo'), {
      'mcp-protocol-version': '2099-01-01',
      'mcp-session-id': sessionId,
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({
      id: 7,
      error: { message: expect.stringMatching(/unsupported protocol version "2099-01-01"/) },
    });
  });

  it('[security.dns-rebinding] refuses a foreign Host or Origin on a loopback server and accepts local ones', async () => {
    const { url } = await start();
    const port = new URL(url).port;
    const evil = await rawPost(url, initializeBody(), { host: 'evil.example.com', origin: 'http://evil.example.com' });
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body)).toMatchObject({ id: null, error: { message: expect.stringMatching(/Host/) } });
    expect((await rawPost(url, initializeBody(), { host: `evil.example.com:${port}` })).status).toBe(403);
    expect((await rawPost(url, initializeBody(), { origin: 'http://evil.example.com' })).status).toBe(403);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost', `[::1]:${port}`]) {
      expect((await rawPost(url, initializeBody(), { host, origin: `http://${host}` })).status).toBe(200);
    }
  });

  it('honours explicit allow-lists and lets them be turned off', async () => {
    const { url } = await start({ allowedHosts: ['mcp.example.com'], allowedOrigins: ['https://app.example.com'] });
    expect((await rawPost(url, initializeBody())).status).toBe(403);
    expect(
      (await rawPost(url, initializeBody(), { host: 'mcp.example.com', origin: 'https://evil.example.com' })).status,
    ).toBe(403);
    expect(
      (await rawPost(url, initializeBody(), { host: 'mcp.example.com', origin: 'https://app.example.com' })).status,
    ).toBe(200);
    expect((await rawPost(url, initializeBody(), { host: 'mcp.example.com' })).status).toBe(200);
    await server?.close();
    const open = await start({ allowedHosts: false, allowedOrigins: false });
    expect(
      (await rawPost(open.url, initializeBody(), { host: 'anything.example', origin: 'http://elsewhere.example' }))
        .status,
    ).toBe(200);
  });

  it('refuses a second request with an id already in flight (409) and goes on serving the first', async () => {
    const s = await start();
    const sessionId = await openSession(s.url);
    const first = await post(s.url, toolCall(5, 'gate', { gate: 'g' }), { 'mcp-session-id': sessionId });
    const again = await post(s.url, toolCall(5, 'echo'), { 'mcp-session-id': sessionId });
    expect(again.status).toBe(409);
    await waitFor(() => s.connections[0]!.inFlightRequests === 1, 'the gate call');
    s.release('g');
    expect(messagesOf(await readSse(first))).toEqual([expect.objectContaining({ id: 5, result: expect.any(Object) })]);
  });
});

describe('createStreamableHttpHandler: resumability', () => {
  it('[transport.http.polling] closes a request stream early on request; GET + Last-Event-ID replays the rest', async () => {
    const s = await start({ retryMs: 50 });
    const sessionId = await openSession(s.url);
    const response = await post(s.url, toolCall(11, 'cut', { gate: 'c' }), { 'mcp-session-id': sessionId });
    const before = await readSse(response);
    expect(before[0]).toMatchObject({ retry: 50, data: '' });
    expect(messagesOf(before).map((m) => (m.params as { data?: unknown }).data)).toEqual(['before cut']);
    const lastEventId = before.at(-1)?.id as string;
    s.release('c');
    const resumed = await fetch(s.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'last-event-id': lastEventId },
    });
    expect(resumed.status).toBe(200);
    const rest = messagesOf(await readSse(resumed));
    expect(rest).toEqual([
      expect.objectContaining({
        method: 'notifications/message',
        params: expect.objectContaining({ data: 'after cut' }),
      }),
      expect.objectContaining({ id: 11, result: { content: [{ type: 'text', text: 'cut done' }] } }),
    ]);
  });

  it('[transport.http.resume] loses no message when the client cuts the stream mid-call and resumes', async () => {
    // The call is silent: its stream opens, primed, once the JSON window has passed.
    const s = await start({ jsonWindowMs: 20 });
    const sessionId = await openSession(s.url);
    const abort = new AbortController();
    const response = await post(
      s.url,
      toolCall(12, 'gate', { gate: 'm' }),
      { 'mcp-session-id': sessionId },
      abort.signal,
    );
    const primed = await readSse(response, (events) => events.length >= 1);
    abort.abort();
    await waitFor(() => s.connections[0]!.inFlightRequests === 1, 'the call to be in flight');
    // While nobody listens, the server goes on: a log and the result are sent and stored.
    s.release('m');
    await waitFor(() => s.connections[0]!.inFlightRequests === 0, 'the call to finish');
    const resumed = await fetch(s.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'last-event-id': primed[0]!.id! },
    });
    expect(messagesOf(await readSse(resumed))).toEqual([
      expect.objectContaining({ id: 12, result: expect.any(Object) }),
    ]);
  });

  it('[transport.http.resume-ended] replays what an ended stream sent after the id, and answers 204 once nothing is left', async () => {
    const s = await start({ eventStore: createInMemoryEventStore(), jsonWindowMs: 0 });
    const sessionId = await openSession(s.url);
    const events = await readSse(await post(s.url, toolCall(7, 'echo'), { 'mcp-session-id': sessionId }));
    const [priming, answer] = [events[0]!, events.at(-1)!];
    const resume = (lastEventId: string) =>
      fetch(s.url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'last-event-id': lastEventId },
      });
    // From its priming event, the ended stream is replayed: its response, then its end.
    const replayed = await resume(priming.id!);
    expect(replayed.status).toBe(200);
    expect(messagesOf(await readSse(replayed))).toEqual([
      expect.objectContaining({ id: 7, result: expect.any(Object) }),
    ]);
    // From its last event, there is nothing more: 204, no body, and the stream is not resumed again.
    const over = await resume(answer.id!);
    expect(over.status).toBe(204);
    expect(await over.text()).toBe('');
    // The session goes on: its GET stream opens as before.
    const standalone = await fetch(s.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
    expect(standalone.status).toBe(200);
    await standalone.body?.cancel();
  });

  it('refuses a Last-Event-ID of another session or an unknown one with 400', async () => {
    const s = await start({ eventStore: createInMemoryEventStore(), jsonWindowMs: 0 });
    const a = await openSession(s.url);
    const b = await openSession(s.url);
    const response = await post(s.url, toolCall(1, 'echo'), { 'mcp-session-id': a });
    const events = await readSse(response);
    const foreign = await fetch(s.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': b, 'last-event-id': events[0]!.id! },
    });
    expect(foreign.status).toBe(400);
    const unknown = await fetch(s.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': b, 'last-event-id': 'nope' },
    });
    expect(unknown.status).toBe(400);
  });

  it('[transport.http.slow-reader] drops a stream whose reader falls too far behind; it resumes without loss', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const s = await start({ maxBufferedBytes: 64 * 1024, logger });
    const sessionId = await openSession(s.url);
    const get = await fetch(s.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
    const reader = (get.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    const primingId = /id: ([^\n]+)/.exec(new TextDecoder().decode(first.value))?.[1] as string;
    // Never read again: the socket buffers fill and the server's unsent output grows.
    const payload = 'y'.repeat(32 * 1024);
    for (let i = 0; i < 200; i++)
      s.connections[0]!.notify('notifications/message', { level: 'info', data: `${i}:${payload}` });
    await waitFor(
      () => lines.some((line) => line.msg === 'slow reader: closing its stream'),
      'the slow reader to be dropped',
    );
    await reader.cancel().catch(() => undefined);
    expect(s.running.handler.sessions.size).toBe(1);
    const resumed = await fetch(s.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'last-event-id': primingId },
    });
    expect(resumed.status).toBe(200);
    const messages = messagesOf(await readSse(resumed, (events) => events.length >= 200));
    expect(messages.map((m) => String((m.params as { data: string }).data).split(':')[0])).toEqual(
      Array.from({ length: 200 }, (_, i) => String(i)),
    );
  });
});

describe('createStreamableHttpHandler: idle sessions', () => {
  it('[transport.http.idle] closes a session idle for sessionIdleMs and leaves no timer behind', async () => {
    const s = await start({ sessionIdleMs: 60_000 });
    const sessionId = await openSession(s.url);
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'performance', 'hrtime'] });
    try {
      // A request re-arms the timer under the fake clock.
      const ping = await post(
        s.url,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { 'mcp-session-id': sessionId },
      );
      expect(ping.status).toBe(202);
      jest.advanceTimersByTime(59_000);
      expect(s.running.handler.sessions.size).toBe(1);
      jest.advanceTimersByTime(1_000);
      expect(s.running.handler.sessions.size).toBe(0);
      expect(s.connections[0]!.state).toBe('shutdown');
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
    expect((await post(s.url, toolCall(1, 'echo'), { 'mcp-session-id': sessionId })).status).toBe(404);
  });

  it('keeps a session alive while a stream is open, and arms the timer once it closes', async () => {
    const s = await start({ sessionIdleMs: 60_000 });
    const sessionId = await openSession(s.url);
    const abort = new AbortController();
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'performance', 'hrtime'] });
    try {
      const get = await fetch(s.url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId },
        signal: abort.signal,
      });
      expect(get.status).toBe(200);
      jest.advanceTimersByTime(120_000);
      expect(s.running.handler.sessions.size).toBe(1);
      abort.abort();
      await waitForReal(() => jest.getTimerCount() > 0);
      jest.advanceTimersByTime(60_000);
      expect(s.running.handler.sessions.size).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});

/** Polls without timers (they are faked) by yielding to I/O. */
async function waitForReal(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!condition()) throw new Error('condition never held');
}

describe('createStreamableHttpHandler: bounds one client cannot push past (#13)', () => {
  it('opens no session for an initialize with invalid params, and answers it -32602 with its id', async () => {
    const { url, running } = await start();
    const { handler } = running;
    const response = await post(url, { jsonrpc: '2.0', id: 4, method: 'initialize', params: { protocolVersion: 7 } });
    expect(response.status).toBe(400);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(await response.json()).toMatchObject({ id: 4, error: { code: -32602 } });
    expect(handler.sessions.size).toBe(0);
  });

  it('refuses an initialize past maxSessions with 503 and Retry-After, and accepts one again once a session ends', async () => {
    const { url, running } = await start({ maxSessions: 2 });
    const { handler } = running;
    const first = await post(url, initializeBody(1));
    await post(url, initializeBody(2));
    const third = await post(url, initializeBody(3));
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('5');
    expect(handler.sessions.size).toBe(2);
    handler.sessions.get(first.headers.get('mcp-session-id')!)!.close('done');
    expect((await post(url, initializeBody(4))).status).toBe(200);
  });
});
