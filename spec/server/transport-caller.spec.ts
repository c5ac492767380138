import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { rateLimit } from '../../lib/server/middleware-kit';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import type { AuthInfo, Transport } from '../../lib/transport/transport';

// The caller a transport verified (a gateway's channel, an authenticated custom transport) is the
// caller of every request it carries: of a session's, and of a 2026-07-28 request made on it,
// which belongs to no session but still came from that caller. Policies keyed on the principal
// count it whatever the revision.

const ALICE: AuthInfo = { subject: 'alice', scopes: ['read'], claims: { iss: 'https://issuer.test', sub: 'alice' } };

function whoServer(): McpServer {
  const server = createServer({
    name: 'who',
    version: '1.0.0',
    logging: false,
    middleware: [rateLimit({ limit: 2, windowMs: 60_000, when: (request) => request.method === 'tools/call' })],
  });
  server.tool({
    name: 'who',
    handler: (_args, context) =>
      textResult(`${context.auth?.subject ?? 'nobody'} ${context.session ? 'session' : 'none'}`),
  });
  return server;
}

/** A client of `server` over a pair whose server side carries `auth`, as an authenticating endpoint's would. */
async function clientAs(
  server: McpServer,
  auth: AuthInfo,
  protocolVersion: '2025-11-25' | '2026-07-28',
): Promise<McpClient> {
  const [clientSide, serverSide] = createInMemoryPair();
  const verified: Transport = {
    incoming$: serverSide.incoming$,
    closed$: serverSide.closed$,
    send: (message, options) => serverSide.send(message, options),
    close: (reason) => serverSide.close(reason),
    auth,
  };
  server.connect(verified);
  return connect(clientSide, { name: 'caller', version: '1.0.0', protocolVersion });
}

const text = (result: { content: readonly { type: string; text?: string }[] }) => result.content[0]?.text;

describe('the caller a transport verified', () => {
  const clients: McpClient[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  it.each([
    ['2025-11-25', 'alice session'],
    ['2026-07-28', 'alice none'],
  ] as const)('is context.auth of a %s request', async (revision, expected) => {
    const client = await clientAs(whoServer(), ALICE, revision);
    clients.push(client);
    expect(text(await client.promises.callTool('who', {}))).toBe(expected);
  });

  it('is counted by a limit on its principal across both revision families', async () => {
    const server = whoServer();
    const legacy = await clientAs(server, ALICE, '2025-11-25');
    const modern = await clientAs(server, ALICE, '2026-07-28');
    clients.push(legacy, modern);
    await legacy.promises.callTool('who', {});
    await modern.promises.callTool('who', {});
    // The third call of alice's, whichever revision makes it, is over the limit of two.
    await expect(modern.promises.callTool('who', {})).rejects.toMatchObject({ code: -32029 });
    await expect(legacy.promises.callTool('who', {})).rejects.toMatchObject({ code: -32029 });
  });
});
