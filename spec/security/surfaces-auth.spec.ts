import type { IncomingMessage, Server } from 'node:http';
import WebSocket from 'ws';
import { createHttpSseHandler } from '../../lib/transport/http-server/http-sse/http-sse-handler';
import { createSseParser } from '../../lib/transport/framing/sse';
import { createStreamableHttpFetchHandler } from '../../lib/transport/http-server/streamable-http/streamable-http-fetch-handler';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RequestAuthenticator } from '../../lib/transport/http/request-auth';
import { createWebSocketHandler, startWebSocketServer } from '../../lib/transport/websocket/websocket-server';
import { textResult } from '../../lib/server/results';
import { eventually } from '../support/until';
import { listen } from './http-fronts';
import { authority, CELLS, ENDPOINT_SCOPE, ISSUER, ITEM_SCOPE, matrixServer } from './matrix-harness';
import type { Cell } from './matrix-harness';

// Every serving surface takes `auth` or refuses to be made with it (DESIGN.md → Conventions at the
// edges). The rows the combination matrix leaves to this suite: the 2024-11-05 HTTP+SSE endpoints
// (served beside Streamable HTTP, and on their own) and WebSocket, each operation tried by each kind
// of caller as an attacker would, the handlers' runs counted; and the fetch handler's metadata.

type Row = Record<Cell, string>;

/** The operations that use something needing ITEM_SCOPE, and what their handler notes when it runs. */
const OPERATIONS = [
  { method: 'tools/call', params: { name: 'guarded', arguments: {} } },
  { method: 'resources/read', params: { uri: 'secret://doc' } },
  { method: 'prompts/get', params: { name: 'brief' } },
] as const;

const initialize = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'attacker', version: '1' } },
});
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

/** The server of every surface here: the matrix's, and a tool that says who its session's caller is. */
function servedServer(ran: string[]) {
  const server = matrixServer(ran);
  server.tool({
    name: 'whoami',
    description: 'The caller as the context and the session see it.',
    handler: (_args, context) => {
      ran.push('whoami');
      return textResult(`${context.auth?.subject ?? 'nobody'}/${context.session?.auth?.subject ?? 'nobody'}`);
    },
  });
  return server;
}

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** What an HTTP refusal amounts to: its status, and `insufficient_scope` when that was the error. */
async function refusalOf(response: Response | IncomingMessage): Promise<string> {
  const status = 'status' in response ? response.status : (response.statusCode ?? 0);
  const text =
    'text' in response
      ? await response.text()
      : await new Promise<string>((done) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => done(body));
        });
  const error = (JSON.parse(text || '{}') as { error?: unknown }).error;
  return error === 'insufficient_scope' ? `${status} insufficient_scope` : `${status}`;
}

// ---------------------------------------------------------------------------------------------
// HTTP+SSE
// ---------------------------------------------------------------------------------------------

/** An open HTTP+SSE session as its client sees it: the POST endpoint and the messages on the stream. */
interface LegacySession {
  readonly endpoint: URL;
  readonly messages: Array<Record<string, unknown>>;
  answer(id: number): Promise<Record<string, unknown>>;
}

/** GETs the SSE endpoint with `headers`: the session, or the refusal. */
async function openLegacy(sse: URL, headers: Record<string, string>): Promise<LegacySession | string> {
  const abort = new AbortController();
  const response = await fetch(sse, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  if (response.status !== 200) return refusalOf(response);
  closers.push(() => abort.abort());
  const messages: Array<Record<string, unknown>> = [];
  let endpoint: URL | undefined;
  const parser = createSseParser((event) => {
    if (event.event === 'endpoint') endpoint = new URL(event.data, sse);
    else messages.push(JSON.parse(event.data) as Record<string, unknown>);
  });
  void (async () => {
    const decoder = new TextDecoder();
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      parser.push(decoder.decode(value, { stream: true }));
    }
  })();
  await eventually(() => endpoint !== undefined);
  return {
    endpoint: endpoint!,
    messages,
    async answer(id) {
      await eventually(() => messages.some((m) => m.id === id));
      return messages.find((m) => m.id === id)!;
    },
  };
}

const postTo = (endpoint: URL, headers: Record<string, string>, body: unknown) =>
  fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** Opens a session as alice (a valid token) and completes its handshake. */
async function aliceSession(sse: URL, valid: Record<string, string>): Promise<LegacySession> {
  const session = await openLegacy(sse, valid);
  if (typeof session === 'string') throw new Error(`alice was refused: ${session}`);
  expect((await postTo(session.endpoint, valid, initialize(1))).status).toBe(202);
  expect(await session.answer(1)).toHaveProperty('result');
  expect((await postTo(session.endpoint, valid, initialized)).status).toBe(202);
  return session;
}

interface LegacyFront {
  /** The SSE endpoint, and the resource (the tokens' audience). */
  readonly sse: URL;
  readonly resource: string;
}

type LegacyFrontKind = (
  server: ReturnType<typeof servedServer>,
  resourceServer: (endpoint: URL | string) => RequestAuthenticator,
) => Promise<LegacyFront>;

/** `startStreamableHttpServer({ auth, httpSse: true })`: the endpoints beside Streamable HTTP (#defect 1). */
const besideStreamableHttp: LegacyFrontKind = async (server, resourceServer) => {
  const running = await startStreamableHttpServer({
    server,
    httpSse: true,
    auth: (endpoint) => resourceServer(endpoint),
  });
  closers.push(() => running.close());
  return { sse: new URL('/sse', running.url), resource: running.url.href };
};

/** `createHttpSseHandler({ auth })` mounted on a node:http server of one's own. */
const onItsOwn: LegacyFrontKind = async (server, resourceServer) => {
  const resource = 'https://legacy.example/sse';
  const handler = createHttpSseHandler({ server, auth: resourceServer(resource) });
  const { server: http, url } = await listen((req, res) => handler.handle(req, res));
  closers.push(() => closeHttp(http, () => handler.close()));
  return { sse: new URL('/sse', url), resource };
};

async function closeHttp(http: Server, before: () => void): Promise<void> {
  before();
  http.closeAllConnections();
  await new Promise((done) => http.close(done));
}

describe.each([
  ['beside Streamable HTTP (startStreamableHttpServer httpSse)', besideStreamableHttp],
  ['on its own (createHttpSseHandler)', onItsOwn],
] as const)('HTTP+SSE behind auth, %s', (_name, kind) => {
  async function setup() {
    const ran: string[] = [];
    const { resourceServer, headersOf } = await authority();
    const front = await kind(servedServer(ran), resourceServer);
    const headers = (cell: Cell, needsItemScope: boolean) => headersOf(cell, front.resource, needsItemScope);
    return { ran, front, headers };
  }

  it('opens a session only for a valid token with the endpoint scope (GET /sse)', async () => {
    const { ran, front, headers } = await setup();
    const row: Partial<Row> = {};
    for (const cell of CELLS) {
      const opened = await openLegacy(front.sse, await headers(cell, false));
      row[cell] = typeof opened === 'string' ? opened : 'opened';
    }
    expect(row).toEqual({
      'no token': '401',
      'wrong audience': '401',
      // Bob's token opens a session of bob's own.
      'another subject': 'opened',
      'missing scope': '403 insufficient_scope',
      valid: 'opened',
    });
    expect(ran).toEqual([]);
  });

  it('challenges a GET without a token with the WWW-Authenticate header, as the MCP endpoint does', async () => {
    const { front } = await setup();
    const refused = await fetch(front.sse, { headers: { accept: 'text/event-stream' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="[^"]+oauth-protected-resource/);
    expect(await refused.json()).toMatchObject({ error: 'unauthorized' });
  });

  it.each(OPERATIONS.map((op) => [op.method, op] as const))(
    'serves a POST of %s to a session only from its owner with the scope it needs; no refused one runs',
    async (_method, op) => {
      const { ran, front, headers } = await setup();
      const session = await aliceSession(front.sse, await headers('valid', false));
      const row: Partial<Row> = {};
      let id = 10;
      for (const cell of CELLS) {
        id += 1;
        const posted = await postTo(session.endpoint, await headers(cell, true), {
          jsonrpc: '2.0',
          id,
          method: op.method,
          params: op.params,
        });
        if (posted.status !== 202) row[cell] = await refusalOf(posted);
        else row[cell] = 'error' in (await session.answer(id)) ? 'error' : 'served';
      }
      expect(row).toEqual({
        'no token': '401',
        'wrong audience': '401',
        'another subject': '403',
        'missing scope': '403 insufficient_scope',
        valid: 'served',
      });
      // Only the valid cell's handler ran; nothing else reached the session, nor came back on its stream.
      expect(ran).toEqual([op.method]);
      expect(session.messages.map((m) => m.id)).toEqual([1, 15]);
    },
  );

  it('gives the handlers the session owner as context.auth and as the session’s auth', async () => {
    const { ran, front, headers } = await setup();
    const session = await aliceSession(front.sse, await headers('valid', false));
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
    expect((await postTo(session.endpoint, await headers('valid', false), call)).status).toBe(202);
    expect(await session.answer(2)).toMatchObject({ result: { content: [{ type: 'text', text: 'alice/alice' }] } });
    expect(ran).toEqual(['whoami']);
  });

  it('refuses an attacker with no token at all: no session, and the guarded tool never runs', async () => {
    const { ran, front } = await setup();
    expect(await openLegacy(front.sse, {})).toBe('401');
    // A session id guessed or leaked does not help either.
    const guessed = new URL('/messages?sessionId=00000000-0000-0000-0000-000000000000', front.sse);
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'guarded', arguments: {} } };
    expect((await postTo(guessed, {}, call)).status).toBe(401);
    expect(ran).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// WebSocket
// ---------------------------------------------------------------------------------------------

const WS_RESOURCE = 'https://ws.example/mcp';

/** A WebSocket client: the upgrade's outcome, then its messages and a way to wait for an answer. */
interface WsPeer {
  send(message: unknown): void;
  answer(id: number): Promise<Record<string, unknown>>;
}

/** Connects with `headers`: the open peer, or the refused upgrade's outcome and its challenge. */
async function connectWs(
  url: URL,
  headers: Record<string, string>,
): Promise<WsPeer | { refused: string; challenge: string }> {
  const socket = new WebSocket(url, ['mcp'], { headers });
  closers.push(() => socket.terminate());
  const messages: Array<Record<string, unknown>> = [];
  socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString('utf8')) as Record<string, unknown> | Array<Record<string, unknown>>;
    messages.push(...(Array.isArray(frame) ? frame : [frame]));
  });
  socket.on('error', () => undefined);
  return new Promise((resolve) => {
    socket.on('unexpected-response', (_req, res) => {
      void refusalOf(res).then((refused) =>
        resolve({ refused, challenge: String(res.headers['www-authenticate'] ?? '') }),
      );
    });
    socket.on('open', () =>
      resolve({
        send: (message) => socket.send(JSON.stringify(message)),
        async answer(id) {
          await eventually(() => messages.some((m) => m.id === id));
          return messages.find((m) => m.id === id)!;
        },
      }),
    );
  });
}

/** Connects and completes the handshake. */
async function initializedWs(url: URL, headers: Record<string, string>): Promise<WsPeer> {
  const peer = await connectWs(url, headers);
  if ('refused' in peer) throw new Error(`refused: ${peer.refused}`);
  peer.send(initialize(1));
  expect(await peer.answer(1)).toHaveProperty('result');
  peer.send(initialized);
  return peer;
}

describe('WebSocket behind auth (startWebSocketServer)', () => {
  async function setup() {
    const ran: string[] = [];
    const { resourceServer, headersOf } = await authority();
    const running = await startWebSocketServer({ server: servedServer(ran), auth: resourceServer(WS_RESOURCE) });
    closers.push(() => running.close());
    const headers = (cell: Cell, needsItemScope: boolean) => headersOf(cell, WS_RESOURCE, needsItemScope);
    return { ran, url: running.url, headers, running };
  }

  it('accepts the upgrade only for a valid token with the endpoint scope, never opening a refused one', async () => {
    const { ran, url, headers, running } = await setup();
    const row: Partial<Row> = {};
    for (const cell of CELLS) {
      const peer = await connectWs(url, await headers(cell, false));
      row[cell] = 'refused' in peer ? peer.refused : 'opened';
    }
    expect(row).toEqual({
      'no token': '401',
      'wrong audience': '401',
      // A connection is a session of its own: bob's token opens bob's.
      'another subject': 'opened',
      'missing scope': '403 insufficient_scope',
      valid: 'opened',
    });
    expect(running.handler.sessions.size).toBe(2);
    expect(ran).toEqual([]);
  });

  it('answers a refused upgrade with the challenge naming the metadata, which the server publishes', async () => {
    const { url } = await setup();
    const refused = await connectWs(url, {});
    expect(refused).toEqual({
      refused: '401',
      challenge: 'Bearer resource_metadata="https://ws.example/.well-known/oauth-protected-resource/mcp", scope="mcp"',
    });
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', `http://${url.host}`));
    expect(await metadata.json()).toMatchObject({ resource: WS_RESOURCE, authorization_servers: [ISSUER] });
  });

  it.each(OPERATIONS.map((op) => [op.method, op] as const))(
    'answers %s without the scope its item needs with -32003, and its handler never runs',
    async (_method, op) => {
      const { ran, url, headers } = await setup();
      const short = await initializedWs(url, await headers('missing scope', true));
      short.send({ jsonrpc: '2.0', id: 2, method: op.method, params: op.params });
      expect(await short.answer(2)).toEqual({
        jsonrpc: '2.0',
        id: 2,
        error: {
          code: -32003,
          message: `Forbidden: ${op.method} needs the scope ${ITEM_SCOPE}`,
          data: { error: 'insufficient_scope', scope: `${ENDPOINT_SCOPE} ${ITEM_SCOPE}` },
        },
      });
      const full = await initializedWs(url, await headers('valid', true));
      full.send({ jsonrpc: '2.0', id: 2, method: op.method, params: op.params });
      expect(await full.answer(2)).toHaveProperty('result');
      expect(ran).toEqual([op.method]);
    },
  );

  it('gives each connection’s handlers its own caller as context.auth', async () => {
    const { url, headers } = await setup();
    const alice = await initializedWs(url, await headers('valid', false));
    const bob = await initializedWs(url, await headers('another subject', false));
    const whoami = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
    alice.send(whoami);
    bob.send(whoami);
    expect(await alice.answer(3)).toMatchObject({ result: { content: [{ text: 'alice/alice' }] } });
    expect(await bob.answer(3)).toMatchObject({ result: { content: [{ text: 'bob/bob' }] } });
  });
});

// ---------------------------------------------------------------------------------------------
// The fetch handler, and surfaces made with an `auth` they cannot apply
// ---------------------------------------------------------------------------------------------

describe('createStreamableHttpFetchHandler behind auth', () => {
  const RESOURCE = 'https://fetch.example/mcp';

  async function setup() {
    const ran: string[] = [];
    const { resourceServer, headersOf } = await authority();
    const handler = createStreamableHttpFetchHandler({ server: servedServer(ran), auth: resourceServer(RESOURCE) });
    closers.push(() => handler.close());
    return { ran, handler, headersOf };
  }

  it('publishes the protected resource metadata at its well-known URL without a token (#defect 3)', async () => {
    const { handler } = await setup();
    const metadata = await handler.fetch(new Request('https://fetch.example/.well-known/oauth-protected-resource/mcp'));
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toEqual({
      resource: RESOURCE,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
      scopes_supported: [ENDPOINT_SCOPE, ITEM_SCOPE],
    });
  });

  it('challenges the MCP endpoint itself, pointing at that metadata', async () => {
    const { ran, handler } = await setup();
    const refused = await handler.fetch(
      new Request(RESOURCE, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(initialize(1)),
      }),
    );
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(
      'resource_metadata="https://fetch.example/.well-known/oauth-protected-resource/mcp"',
    );
    expect(ran).toEqual([]);
  });
});

describe('a surface given an auth it cannot apply', () => {
  const notAnAuthenticator = (() => undefined) as unknown as RequestAuthenticator;
  const server = () => matrixServer([]);

  it.each([
    ['createHttpSseHandler', () => createHttpSseHandler({ server: server(), auth: notAnAuthenticator })],
    ['createWebSocketHandler', () => createWebSocketHandler({ server: server(), auth: notAnAuthenticator })],
    [
      'createStreamableHttpFetchHandler',
      () => createStreamableHttpFetchHandler({ server: server(), auth: notAnAuthenticator }),
    ],
  ])('%s refuses to be made, naming what auth must be', (name, make) => {
    expect(make).toThrow(
      new TypeError(
        `${name}: auth must be a RequestAuthenticator, as createResourceServer makes: a function of the endpoint URL is taken by startStreamableHttpServer only; call it with the URL yourself`,
      ),
    );
  });

  it('startWebSocketServer refuses to start', async () => {
    await expect(startWebSocketServer({ server: server(), auth: {} as RequestAuthenticator })).rejects.toThrow(
      'startWebSocketServer',
    );
  });
});
