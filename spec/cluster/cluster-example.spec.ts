import { startRedis } from '../support/redis-server';
import type { RunningRedis } from '../support/redis-server';
import { built, killLeftovers, startProgram, stopProgram } from '../examples/run-example';
import type { Running } from '../examples/run-example';

// examples/cluster.ts, built, as two processes on one redis-server (here, not in spec/examples/,
// because `npm run test:unit` skips spec/cluster/: it needs redis-server).
describe('examples/cluster', () => {
  let redis: RunningRedis | undefined;
  let a: Running | undefined;
  let b: Running | undefined;

  beforeAll(async () => {
    redis = await startRedis();
    const env = { REDIS_URL: redis.url, PORT: '0' };
    [a, b] = await Promise.all([
      startProgram(built('cluster.ts'), [], { env }),
      startProgram(built('cluster.ts'), [], { env }),
    ]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([stopProgram(a), stopProgram(b)]);
    await redis?.stop();
    killLeftovers();
  });

  /** POSTs one JSON-RPC message; returns the status, the session id, and the JSON answer if any. */
  async function post(url: string, message: object, sessionId?: string) {
    const answer = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
      },
      body: JSON.stringify(message),
    });
    const text = await answer.text();
    // A JSON body, or an SSE stream whose data lines carry the answer.
    const json = text.startsWith('{') ? text : /^data: (.+)$/m.exec(text)?.[1];
    return {
      status: answer.status,
      sessionId: answer.headers.get('mcp-session-id') ?? undefined,
      body: json === undefined ? undefined : (JSON.parse(json) as { result?: { content?: unknown } }),
    };
  }

  it('serves a session opened on one process from the other: the call runs where the session lives', async () => {
    const pidOf = (running: Running) => /process (\d+)/.exec(running.stdout())![1];
    const opened = await post(a!.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'spec', version: '1.0.0' } },
    });
    expect(opened.status).toBe(200);
    expect(opened.sessionId).toEqual(expect.any(String));
    expect((await post(b!.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, opened.sessionId)).status).toBe(
      202,
    );
    const called = await post(
      b!.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'where', arguments: {} } },
      opened.sessionId,
    );
    expect(called.status).toBe(200);
    // Process B forwarded the call to A, the session's owner.
    expect(called.body?.result?.content).toEqual([{ type: 'text', text: `process ${pidOf(a!)}` }]);
    expect(pidOf(a!)).not.toBe(pidOf(b!));
  });
});
