import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { JsonRpcError, MessageEncodingError } from '../../lib/jsonrpc/errors';
import { proxy } from '../../lib/proxy/proxy';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { LogUpdate } from '../../lib/connection/handler-events';
import { of } from 'rxjs';

// A message JSON cannot write (a BigInt, a cycle, nesting deeper than JSON.stringify follows) is
// refused alone: the transport sends nothing of it and goes on. A request fails with a
// MessageEncodingError, a response is answered with -32603 in its place, a handler's event is left
// out; and a proxy handed a caller's deeply nested params fails that call, not its upstream.

/** Arrays nested `depth` deep: more than JSON.stringify can follow. */
const nested = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

function exampleServer() {
  const server = createServer({ name: 'unencodable', version: '1.0.0' });
  server.tool({ name: 'echo', handler: (args: Record<string, unknown>) => textResult(String(args.text)) });
  server.tool({
    name: 'bigint',
    handler: () => ({ content: [{ type: 'text', text: 'counted' }], structuredContent: { count: BigInt(7) } }),
  });
  server.tool({
    name: 'noisy',
    handler: () => of(new LogUpdate('info', { count: BigInt(7) }), textResult('done')),
  });
  return server;
}

describe.each(['2025-06-18', '2026-07-28'] as const)(
  'messages JSON cannot write, over Streamable HTTP (%s)',
  (revision) => {
    let running: RunningStreamableHttpServer;
    let client: McpClient;

    beforeEach(async () => {
      running = await startStreamableHttpServer({ server: exampleServer(), host: '127.0.0.1', port: 0 });
      client = await connect(createStreamableHttpClientTransport({ url: running.url }), {
        name: 'caller',
        version: '1.0.0',
        protocolVersion: revision,
      });
    });

    afterEach(async () => {
      client.close();
      await running.close();
    });

    it('answers a result it cannot send with -32603 saying why, and serves the next call', async () => {
      const failed = client.promises.callTool('bigint', {});
      await expect(failed).rejects.toBeInstanceOf(JsonRpcError);
      await expect(failed).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(
          /^The result could not be sent: The message could not be encoded as JSON: .*BigInt/,
        ),
      });
      await expect(client.promises.callTool('echo', { text: 'after' })).resolves.toEqual({
        content: [{ type: 'text', text: 'after' }],
      });
    });

    it('leaves out a handler event it cannot send, and answers the call', async () => {
      await expect(client.promises.callTool('noisy', {})).resolves.toEqual({
        content: [{ type: 'text', text: 'done' }],
      });
    });

    it('fails a request it cannot send with a MessageEncodingError, sends nothing, and stays open', async () => {
      await expect(client.promises.callTool('echo', { text: 'x', count: BigInt(1) })).rejects.toBeInstanceOf(
        MessageEncodingError,
      );
      await expect(client.promises.callTool('echo', { text: 'x', deep: nested(200_000) })).rejects.toThrow(
        'The message could not be encoded as JSON: it is nested too deeply',
      );
      await expect(client.promises.callTool('echo', { text: 'still open' })).resolves.toEqual({
        content: [{ type: 'text', text: 'still open' }],
      });
    });
  },
);

describe('a proxy handed params JSON cannot write', () => {
  let running: RunningStreamableHttpServer;
  const clients: McpClient[] = [];

  beforeEach(async () => {
    running = await startStreamableHttpServer({ server: exampleServer(), host: '127.0.0.1', port: 0 });
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await running.close();
  });

  it.each(['2025-06-18', '2026-07-28'] as const)(
    'fails that call and keeps its upstream (%s upstream): other callers are not disturbed',
    async (upstreamRevision) => {
      const upstream = await connect(createStreamableHttpClientTransport({ url: running.url }), {
        name: 'gateway',
        version: '1.0.0',
        protocolVersion: upstreamRevision,
      });
      const front = proxy(upstream);
      const callers: McpClient[] = [];
      for (const name of ['deep', 'other']) {
        const [callerSide, frontSide] = createInMemoryPair();
        front.connect(frontSide);
        callers.push(await connect(callerSide, { name, version: '1.0.0' }));
      }
      clients.push(...callers, upstream);
      const [deep, other] = callers as [McpClient, McpClient];
      let upstreamClosed = false;
      upstream.closed$.subscribe(() => (upstreamClosed = true));

      const failed = deep.promises.callTool('echo', { text: 'x', deep: nested(200_000) });
      await expect(failed).rejects.toBeInstanceOf(JsonRpcError);
      await expect(failed).rejects.toMatchObject({
        code: -32602,
        message: 'Invalid params: nested too deeply to be passed on',
      });
      await expect(other.promises.callTool('echo', { text: 'served' })).resolves.toEqual({
        content: [{ type: 'text', text: 'served' }],
      });
      await expect(deep.promises.callTool('echo', { text: 'again' })).resolves.toEqual({
        content: [{ type: 'text', text: 'again' }],
      });
      // The upstream's connection stayed: the proxy did not lose it, or its tools.
      expect(upstreamClosed).toBe(false);
      expect(upstream.state).toBe('operating');
      expect((await other.promises.listTools()).map((tool) => tool.name)).toContain('echo');
    },
  );
});
