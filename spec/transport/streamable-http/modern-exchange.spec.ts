import { z } from 'zod';
import { progress } from '../../../lib/connection/handler-events';
import { META } from '../../../lib/connection/modern';
import { createServer } from '../../../lib/server/server';
import type { McpServer } from '../../../lib/server/server';
import { decodeHeaderValue } from '../../../lib/transport/http-server/modern-exchange';
import { startStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';
import { concat, NEVER, of } from 'rxjs';

const REVISION = '2026-07-28';
const meta = { [META.protocolVersion]: REVISION, [META.clientCapabilities]: {} };

describe('Streamable HTTP serving modern requests (2026-07-28) beside sessions', () => {
  let server: McpServer;
  let running: RunningStreamableHttpServer;
  let cancelled = 0;
  let started = 0;

  beforeEach(async () => {
    cancelled = 0;
    started = 0;
    server = createServer({ name: 'http-modern', version: '1.0.0' });
    server.tool({
      name: 'echo',
      description: 'echoes',
      inputSchema: z.object({ text: z.string() }),
      handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
    });
    server.tool({
      name: 'slow',
      description: 'reports progress, then waits for ever',
      handler: () => concat(of(progress(1, 2)), NEVER),
    });
    server.tool({
      name: 'hang',
      description: 'never answers; counts starts and cancellations',
      handler: (_args, context) => {
        started++;
        context.signal.addEventListener('abort', () => cancelled++);
        return new Promise(() => undefined);
      },
    });
    server.tool({
      name: 'regional',
      description: 'has a header argument',
      inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
      handler: () => ({ content: [] }),
    });
    server.tool({
      name: 'zonal',
      description: 'has a header argument, annotated through zod',
      inputSchema: z.object({ zone: z.string().meta({ 'x-mcp-header': 'Zone' }) }),
      handler: () => ({ content: [] }),
    });
    running = await startStreamableHttpServer({ server });
  });
  afterEach(async () => {
    server.close();
    await running.close();
  });

  const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(running.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    });
  const standard = (method: string, name?: string) => ({
    'mcp-protocol-version': REVISION,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  });

  it('answers server/discover as one JSON body, with no session id', async () => {
    const response = await post(
      { id: 1, method: 'server/discover', params: { _meta: meta } },
      standard('server/discover'),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const body = (await response.json()) as { id: number; result: { supportedVersions: string[] } };
    expect(body.id).toBe(1);
    expect(body.result.supportedVersions[0]).toBe(REVISION);
  });

  it('refuses a request whose standard headers disagree with its body: 400, -32020, the request id', async () => {
    const wrongName = await post(
      { id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, _meta: meta } },
      standard('tools/call', 'other'),
    );
    expect(wrongName.status).toBe(400);
    expect(await wrongName.json()).toMatchObject({ id: 7, error: { code: -32020 } });
    const noMethod = await post(
      { id: 8, method: 'tools/list', params: { _meta: meta } },
      { 'mcp-protocol-version': REVISION },
    );
    expect(noMethod.status).toBe(400);
    const mismatch = await post(
      { id: 9, method: 'tools/list', params: { _meta: meta } },
      { ...standard('tools/list'), 'mcp-protocol-version': '2025-11-25' },
    );
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toMatchObject({ id: 9, error: { code: -32020 } });
  });

  it('accepts an Mcp-Name in the Base64 sentinel form', async () => {
    const response = await post(
      { id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hé' }, _meta: meta } },
      standard('tools/call', `=?base64?${Buffer.from('echo').toString('base64')}?=`),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ result: { content: [{ text: 'hé' }], resultType: 'complete' } });
  });

  it('answers an unsupported version with 400 and -32022 naming the request id (#11)', async () => {
    const response = await post(
      { id: 'v', method: 'tools/list', params: { _meta: { ...meta, [META.protocolVersion]: '1999-01-01' } } },
      { ...standard('tools/list'), 'mcp-protocol-version': '1999-01-01' },
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      id: 'v',
      error: { code: -32022, data: { requested: '1999-01-01' } },
    });
  });

  it('answers a removed or unknown method with 404 and -32601', async () => {
    for (const method of ['ping', 'logging/setLevel', 'resources/subscribe', 'no/such']) {
      const response = await post({ id: 3, method, params: { _meta: meta } }, standard(method));
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ id: 3, error: { code: -32601 } });
    }
  });

  it('checks Mcp-Param headers against the arguments they mirror', async () => {
    const call = (headers: Record<string, string>) =>
      post(
        { id: 4, method: 'tools/call', params: { name: 'regional', arguments: { region: 'eu' }, _meta: meta } },
        { ...standard('tools/call', 'regional'), ...headers },
      );
    expect((await call({ 'mcp-param-region': 'eu' })).status).toBe(200);
    expect((await call({ 'mcp-param-region': `=?base64?${Buffer.from('eu').toString('base64')}?=` })).status).toBe(200);
    const missing = await call({});
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { code: -32020 } });
    expect((await call({ 'mcp-param-region': 'us' })).status).toBe(400);
  });

  it('finds the Mcp-Param headers of a zod schema when the tool is registered, before any listing', async () => {
    const call = (headers: Record<string, string>) =>
      post(
        { id: 6, method: 'tools/call', params: { name: 'zonal', arguments: { zone: 'a' }, _meta: meta } },
        { ...standard('tools/call', 'zonal'), ...headers },
      );
    const missing = await call({});
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { code: -32020 } });
    expect((await call({ 'mcp-param-zone': 'a' })).status).toBe(200);
  });

  it('streams progress as SSE with no event ids, and cancels the request when the client closes it', async () => {
    const abort = new AbortController();
    const response = await fetch(running.url, {
      method: 'POST',
      signal: abort.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...standard('tools/call', 'slow'),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'slow', _meta: { ...meta, progressToken: 't' } },
      }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    const text = Buffer.from(value!).toString('utf8');
    expect(text).toContain('"method":"notifications/progress"');
    expect(text).not.toMatch(/^id:/m);
    abort.abort();

    const gone = new AbortController();
    const hung = fetch(running.url, {
      method: 'POST',
      signal: gone.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...standard('tools/call', 'hang'),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'hang', _meta: meta } }),
    }).catch((error: unknown) => error);
    while (started === 0) await new Promise((resolve) => setImmediate(resolve));
    gone.abort();
    await hung;
    while (cancelled === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(cancelled).toBe(1);
  }, 10_000);

  it('still opens a session for a client that sends initialize', async () => {
    const response = await post({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeTruthy();
  });
});

describe('decodeHeaderValue', () => {
  it('takes plain values as they are and decodes the strict Base64 sentinel', () => {
    expect(decodeHeaderValue('us-west1')).toBe('us-west1');
    expect(decodeHeaderValue('=?base64?SGVsbG8=?=')).toBe('Hello');
    expect(decodeHeaderValue('=?base64?SGVsbG8?=')).toBeUndefined();
    expect(decodeHeaderValue('=?base64?SGVsbG8=')).toBe('=?base64?SGVsbG8=');
  });
});

describe('a Streamable HTTP deployment of the modern revision only', () => {
  it('keeps no sessions: initialize is refused naming the revisions served, GET and DELETE answer 405', async () => {
    const server = createServer({ name: 'modern-only', version: '1.0.0', supportedRevisions: [REVISION] });
    server.tool({ name: 'noop', description: 'does nothing', handler: () => ({ content: [] }) });
    const running = await startStreamableHttpServer({ server, supportedRevisions: [REVISION] });
    try {
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const init = await fetch(running.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
        }),
      });
      expect(init.status).toBe(400);
      expect(init.headers.get('mcp-session-id')).toBeNull();
      expect(await init.json()).toMatchObject({
        id: 1,
        error: { code: -32022, data: { supported: [REVISION], requested: '2025-11-25' } },
      });
      expect((await fetch(running.url, { method: 'GET', headers: { accept: 'text/event-stream' } })).status).toBe(405);
      expect((await fetch(running.url, { method: 'DELETE' })).status).toBe(405);
      const list = await fetch(running.url, {
        method: 'POST',
        headers: { ...headers, 'mcp-protocol-version': REVISION, 'mcp-method': 'tools/list' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } }),
      });
      expect(await list.json()).toMatchObject({ id: 2, result: { tools: [{ name: 'noop' }] } });
      expect(running.handler.sessions.size).toBe(0);
    } finally {
      server.close();
      await running.close();
    }
  });
});
