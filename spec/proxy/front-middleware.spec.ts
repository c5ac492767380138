import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { ErrorCode, JsonRpcError } from '../../lib/jsonrpc/errors';
import { aggregate } from '../../lib/proxy/aggregate';
import { proxy } from '../../lib/proxy/proxy';
import type { McpProxy } from '../../lib/proxy/proxy';
import { concurrencyLimit, rateLimit } from '../../lib/server/middleware-kit';
import type { ServerMiddleware } from '../../lib/server/middleware';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { toolPolicy } from '../../lib/server/tool-policy';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import type { AuthInfo } from '../../lib/transport/transport';
import type { RequestAuthenticator } from '../../lib/transport/http/request-auth';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { authenticated } from '../support/authenticated';
import { until } from '../support/until';

// Server middleware around what a proxy and an aggregate forward: limits keyed on the caller's
// principal (its sessions share one count), tool policies by scope, the session as middleware sees it.

const user = (sub: string, scopes: string[] = []): AuthInfo => ({
  subject: sub,
  scopes,
  claims: { iss: 'https://issuer.example', sub },
});

function upstreamServer(): McpServer {
  const server = createServer({ name: 'files', version: '1.0.0' });
  server.tool({ name: 'read', handler: () => textResult('read') });
  server.tool({ name: 'deploy', handler: () => textResult('deployed') });
  return server;
}

async function upstreamClient(): Promise<McpClient> {
  const [clientSide, serverSide] = createInMemoryPair();
  upstreamServer().connect(serverSide);
  return connect(clientSide, { name: 'gateway', version: '1.0.0', protocolVersion: '2025-11-25' });
}

const clients: McpClient[] = [];
afterEach(() => clients.splice(0).forEach((client) => client.close()));

/** A downstream session of `front` as the caller `auth`. */
async function sessionAs(front: McpProxy, auth: AuthInfo | undefined): Promise<McpClient> {
  const [clientSide, serverSide] = createInMemoryPair();
  front.connect(auth ? authenticated(serverSide, auth) : serverSide);
  const client = await connect(clientSide, { name: 'caller', version: '1.0.0', protocolVersion: '2025-11-25' });
  clients.push(client);
  return client;
}

/** An endpoint's authenticator that takes `Bearer <subject>` for each of `subjects`, as that user. */
const bearers = (...subjects: string[]): RequestAuthenticator => ({
  authenticate: (headers) => {
    const subject = headers.authorization?.startsWith('Bearer ') ? headers.authorization.slice(7) : undefined;
    return Promise.resolve(
      subject !== undefined && subjects.includes(subject)
        ? { ok: true, info: user(subject) }
        : { ok: false, status: 401, wwwAuthenticate: 'Bearer', description: 'no' },
    );
  },
  serveMetadata: () => false,
  insufficientScope: () => ({ status: 403, wwwAuthenticate: 'Bearer', description: 'no' }),
});

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const limits = (): ServerMiddleware[] => [
  rateLimit({ name: 'calls', limit: 2, windowMs: 60_000, when: (request) => request.method === 'tools/call' }),
  toolPolicy({ tools: { files_deploy: { scopes: ['deploy'] } } }),
];

describe('aggregate({ middleware })', () => {
  it('counts a principal over its sessions, and another principal apart', async () => {
    const front = aggregate({ files: await upstreamClient() }, { middleware: limits() });
    const first = await sessionAs(front, user('alice'));
    const second = await sessionAs(front, user('alice'));
    await first.promises.callTool('files_read');
    await second.promises.callTool('files_read');
    const refused = await failureOf(first.promises.callTool('files_read'));
    expect(refused).toMatchObject({ code: ErrorCode.RateLimited, data: { name: 'calls', limit: 2 } });
    expect((refused as { data: { retryAfterMs: number } }).data.retryAfterMs).toBeGreaterThan(0);
    const bob = await sessionAs(front, user('bob'));
    expect((await bob.promises.callTool('files_read')).content).toEqual([{ type: 'text', text: 'read' }]);
    front.close();
  });

  it('hides and refuses tools by scope, with the names the aggregate shows', async () => {
    const front = aggregate({ files: await upstreamClient() }, { middleware: limits() });
    const reader = await sessionAs(front, user('carol'));
    const deployer = await sessionAs(front, user('dave', ['deploy']));
    expect((await reader.promises.listTools()).map((tool) => tool.name)).toEqual(['files_read']);
    expect(await failureOf(reader.promises.callTool('files_deploy'))).toMatchObject({ code: ErrorCode.Forbidden });
    expect((await deployer.promises.listTools()).map((tool) => tool.name).sort()).toEqual([
      'files_deploy',
      'files_read',
    ]);
    expect((await deployer.promises.callTool('files_deploy')).content).toEqual([{ type: 'text', text: 'deployed' }]);
    front.close();
  });

  it('runs around modern requests over HTTP too, with the principal the endpoint verified', async () => {
    const front = aggregate({ files: await upstreamClient() }, { middleware: limits() });
    const auth = bearers('erin', 'fred');
    const running = await startStreamableHttpServer({ server: front, port: 0, auth });
    try {
      const modernAs = async (token: string) => {
        const transport = createStreamableHttpClientTransport({
          url: running.url,
          headers: { authorization: `Bearer ${token}` },
        });
        const client = await connect(transport, { name: 'caller', version: '1.0.0', protocolVersion: '2026-07-28' });
        clients.push(client);
        return client;
      };
      const erin = await modernAs('erin');
      await erin.promises.callTool('files_read');
      await erin.promises.callTool('files_read');
      expect(await failureOf(erin.promises.callTool('files_read'))).toMatchObject({ code: ErrorCode.RateLimited });
      // Same client name, another principal: a count of its own.
      const fred = await modernAs('fred');
      expect((await fred.promises.callTool('files_read')).content).toEqual([{ type: 'text', text: 'read' }]);
    } finally {
      clients.splice(0).forEach((client) => client.close());
      await running.close();
      front.close();
    }
  });

  it('shows the middleware the downstream session: its id, caller, client and revision', async () => {
    const seen: unknown[] = [];
    const look: ServerMiddleware = (request, context, next) => {
      if (request.method === 'tools/call')
        seen.push({
          id: typeof context.session?.id,
          sub: context.auth?.subject,
          client: context.clientInfo?.name,
          revision: context.session?.revision,
        });
      return next();
    };
    const front = aggregate({ files: await upstreamClient() }, { middleware: [look] });
    const session = await sessionAs(front, user('frank'));
    await session.promises.callTool('files_read');
    expect(seen).toEqual([{ id: 'string', sub: 'frank', client: 'caller', revision: '2025-11-25' }]);
    front.close();
  });
});

describe('proxy({ middleware })', () => {
  it('limits the calls a principal has in flight across its sessions', async () => {
    const upstream = createServer({ name: 'slow', version: '1.0.0' });
    let release!: () => void;
    let started!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running$ = new Promise<void>((resolve) => (started = resolve));
    upstream.tool({
      name: 'wait',
      handler: async () => {
        started();
        await gate;
        return textResult('done');
      },
    });
    const [clientSide, serverSide] = createInMemoryPair();
    upstream.connect(serverSide);
    const client = await connect(clientSide, { name: 'gateway', version: '1.0.0', protocolVersion: '2025-11-25' });
    const front = proxy(client, { middleware: [concurrencyLimit({ limit: 1 })] });
    const first = await sessionAs(front, user('gina'));
    const second = await sessionAs(front, user('gina'));
    const running = first.promises.callTool('wait');
    await running$;
    expect(await failureOf(second.promises.callTool('wait'))).toMatchObject({ code: ErrorCode.RateLimited });
    release();
    expect((await running).content).toEqual([{ type: 'text', text: 'done' }]);
    expect((await second.promises.callTool('wait')).content).toEqual([{ type: 'text', text: 'done' }]);
    front.close();
    client.close();
  });

  it('relays admitted calls of both revision families over HTTP, counted against the verified principal', async () => {
    const front = proxy(await upstreamClient(), {
      middleware: [rateLimit({ name: 'calls', limit: 2, windowMs: 60_000, when: (r) => r.method === 'tools/call' })],
    });
    const auth = bearers('ivy');
    const running = await startStreamableHttpServer({ server: front, port: 0, auth });
    try {
      const as = async (protocolVersion: '2025-11-25' | '2026-07-28') => {
        const transport = createStreamableHttpClientTransport({
          url: running.url,
          headers: { authorization: 'Bearer ivy' },
        });
        const client = await connect(transport, { name: 'caller', version: '1.0.0', protocolVersion });
        clients.push(client);
        return client;
      };
      const modern = await as('2026-07-28');
      const session = await as('2025-11-25');
      expect((await modern.promises.callTool('read')).content).toEqual([{ type: 'text', text: 'read' }]);
      expect((await session.promises.callTool('read')).content).toEqual([{ type: 'text', text: 'read' }]);
      // One principal, one count, whichever revision it speaks.
      expect(await failureOf(modern.promises.callTool('read'))).toMatchObject({ code: ErrorCode.RateLimited });
      expect(await failureOf(session.promises.callTool('read'))).toMatchObject({ code: ErrorCode.RateLimited });
    } finally {
      clients.splice(0).forEach((client) => client.close());
      await running.close();
      front.close();
    }
  });

  it('relays an admitted call: cancelling it cancels the upstream call and frees its place', async () => {
    const upstream = createServer({ name: 'slow', version: '1.0.0' });
    const aborted: string[] = [];
    let started!: () => void;
    const running$ = new Promise<void>((resolve) => (started = resolve));
    upstream.tool({
      name: 'hang',
      handler: (_args, context) => {
        context.signal.addEventListener('abort', () => aborted.push('hang'));
        started();
        return new Promise(() => undefined);
      },
    });
    upstream.tool({ name: 'fail', handler: () => Promise.reject(new JsonRpcError(-32002, 'gone upstream')) });
    const [clientSide, serverSide] = createInMemoryPair();
    upstream.connect(serverSide);
    const client = await connect(clientSide, { name: 'gateway', version: '1.0.0', protocolVersion: '2025-11-25' });
    const front = proxy(client, { middleware: [concurrencyLimit({ limit: 1 })] });
    const caller = await sessionAs(front, user('hana'));
    const call = caller.callTool('hang').subscribe({ error: () => undefined });
    await running$;
    call.unsubscribe();
    await until(() => aborted.length === 1);
    expect(await failureOf(caller.promises.callTool('fail'))).toMatchObject({ code: -32002, message: 'gone upstream' });
    front.close();
    client.close();
  });

  it('serves the official SDK client over authenticated HTTP, each call admitted once on whichever path it takes', async () => {
    const upstream = createServer({ name: 'files', version: '1.0.0' });
    upstream.tool({ name: 'read', handler: () => textResult('read') });
    upstream.tool({ name: 'deploy', handler: () => textResult('deployed') });
    upstream.tool({
      name: 'slow',
      handler: (_args, context) => {
        context.progress(1, 2);
        return textResult('slow');
      },
    });
    const [clientSide, serverSide] = createInMemoryPair();
    upstream.connect(serverSide);
    const client = await connect(clientSide, { name: 'gateway', version: '1.0.0', protocolVersion: '2025-11-25' });
    const front = proxy(client, {
      middleware: [
        toolPolicy({ tools: { deploy: { scopes: ['deploy'] } } }),
        rateLimit({ name: 'calls', limit: 4, windowMs: 60_000, when: (r) => r.method === 'tools/call' }),
        concurrencyLimit({ limit: 8 }),
      ],
    });
    const auth = bearers('jo');
    const running = await startStreamableHttpServer({ server: front, port: 0, auth });
    const sdk = new Client({ name: 'sdk-downstream', version: '1.0.0' });
    try {
      await sdk.connect(
        new StreamableHTTPClientTransport(new URL(running.url), {
          requestInit: { headers: { authorization: 'Bearer jo' } },
        }),
      );
      const text = (result: Record<string, unknown>) => (result.content as Array<{ text: string }>)[0]!.text;
      // Relayed once admitted.
      expect(text(await sdk.callTool({ name: 'read', arguments: {} }))).toBe('read');
      // Asks for progress: its handler forwards it, admitted on the handler's path.
      const progress: number[] = [];
      const slow = await sdk.callTool({ name: 'slow', arguments: {} }, undefined, {
        onprogress: (update) => progress.push(update.progress),
      });
      expect([text(slow), progress]).toEqual(['slow', [1]]);
      // The listing is filtered for the caller as it comes back; a refused tool counts for nothing.
      expect((await sdk.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['read', 'slow']);
      await expect(sdk.callTool({ name: 'deploy', arguments: {} })).rejects.toMatchObject({
        code: ErrorCode.Forbidden,
      });
      // Two calls counted so far, whichever path each took: two more pass, the fifth is refused.
      expect(text(await sdk.callTool({ name: 'read', arguments: {} }))).toBe('read');
      expect(text(await sdk.callTool({ name: 'read', arguments: {} }))).toBe('read');
      const refused = sdk.callTool({ name: 'read', arguments: {} });
      await expect(refused).rejects.toMatchObject({
        code: ErrorCode.RateLimited,
        data: { name: 'calls', limit: 4 },
      });
    } finally {
      await sdk.close();
      await running.close();
      front.close();
      client.close();
    }
  });
});
