import { startClusterChild } from '../support/cluster-processes';
import type { ClusterChild } from '../support/cluster-processes';
import { startRedis } from '../support/redis-server';
import type { RunningRedis } from '../support/redis-server';

// A request whose params JSON.parse takes and JSON.stringify cannot follow (nested 200,000 deep),
// sent to a process that does not hold its session: that process cannot forward it to the owner.
// It answers 400 with the JSON-RPC error saying why, where it answered 503 (which asks the client
// to try again), and goes on forwarding the session's other requests. Two cluster processes built
// from the sources, on a real redis-server.
jest.setTimeout(30_000);

let redis: RunningRedis;
let a: ClusterChild;
let b: ClusterChild;

beforeAll(async () => {
  redis = await startRedis();
  a = await startClusterChild({ redisUrl: redis.url, prefix: 'unencodable:' });
  b = await startClusterChild({ redisUrl: redis.url, prefix: 'unencodable:' });
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.stop();
});

/** A JSON-RPC answer, as far as the test reads it. */
interface Answer {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** POSTs `body` to `url`: the status and the JSON-RPC message answered (as JSON or one SSE event). */
async function post(
  url: string,
  body: string,
  sessionId?: string,
): Promise<{ status: number; message: Answer | undefined }> {
  const headers: Record<string, string> = { ...HEADERS };
  if (sessionId !== undefined)
    Object.assign(headers, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  const data = text.split('\n').find((line) => line.startsWith('data: {'));
  return {
    status: response.status,
    message: text === '' ? undefined : (JSON.parse(data ? data.slice(6) : text) as Answer),
  };
}

it('refuses a request it cannot forward with 400 and -32600, and forwards the next one', async () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'deep', version: '1' } },
  };
  const opened = await fetch(a.url, { method: 'POST', headers: HEADERS, body: JSON.stringify(initialize) });
  await opened.text();
  const sessionId = opened.headers.get('mcp-session-id')!;
  expect(sessionId).toBeTruthy();
  expect((await post(a.url, '{"jsonrpc":"2.0","method":"notifications/initialized"}', sessionId)).status).toBe(202);

  const depth = 200_000;
  const deep = '['.repeat(depth) + ']'.repeat(depth);
  const refused = await post(
    b.url,
    `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{"deep":${deep}}}}`,
    sessionId,
  );
  expect(refused.status).toBe(400);
  expect(refused.message).toMatchObject({
    error: { code: -32600, message: expect.stringContaining('it cannot be forwarded to its session') },
  });
  expect(refused.message?.error?.message).toContain('nested too deeply');

  // The session is still the owner's, and the other process forwards to it as before.
  const served = await post(
    b.url,
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami"}}',
    sessionId,
  );
  expect(served.status).toBe(200);
  expect(served.message).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: a.processId }] } });
});
