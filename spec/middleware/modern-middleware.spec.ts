import type { McpClient } from '../../lib/client/client';
import { META } from '../../lib/connection/modern';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import { rateLimit } from '../../lib/server/middleware-kit';
import type { ServerMiddleware } from '../../lib/server/middleware';
import { until } from '../support/until';
import { clientOf, demoServer, textOf, virtualClock } from './harness';

const REVISION = '2026-07-28';

describe('server middleware under the modern revision', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());

  it('runs for a modern request over a connection, with no session and the client from _meta', async () => {
    const seen: unknown[] = [];
    const spy: ServerMiddleware = (request, context, next) => {
      seen.push({
        method: request.method,
        session: context.session,
        revision: context.revision,
        client: context.clientInfo?.name,
      });
      return next();
    };
    const { server } = demoServer({ middleware: [spy] });
    client = await clientOf(server, { protocolVersion: REVISION });
    expect(client.era).toBe('modern');
    expect(textOf(await client.promises.callTool('echo', { text: 'hi' }))).toBe('hi');
    expect(seen).toContainEqual({
      method: 'tools/call',
      session: undefined,
      revision: REVISION,
      client: 'middleware-client',
    });
  });

  it('runs for a request the modern endpoint serves, and its errors are JSON-RPC answers', async () => {
    const clock = virtualClock();
    const methods: string[] = [];
    const { server } = demoServer({
      middleware: [
        (request, _context, next) => {
          methods.push(request.method);
          return next();
        },
        rateLimit({ limit: 1, windowMs: 1000, scheduler: clock.scheduler }),
      ],
    });
    const answers: JsonRpcMessage[] = [];
    const exchange = { notify: () => undefined, respond: (message: JsonRpcMessage) => answers.push(message) };
    const call = (id: number) =>
      server.modern.serve(
        {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {
            name: 'echo',
            arguments: { text: `call ${id}` },
            _meta: {
              [META.protocolVersion]: REVISION,
              [META.clientCapabilities]: {},
              [META.clientInfo]: { name: 'raw', version: '1' },
            },
          },
        },
        exchange,
      );
    call(1);
    call(2);
    await until(() => answers.length === 2);
    expect(methods).toEqual(['tools/call', 'tools/call']);
    expect(answers[0]).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'call 1' }] } });
    // Modern requests from one client name count together (no session to tell them apart).
    expect(answers[1]).toMatchObject({ id: 2, error: { code: -32029 } });
  });
});
