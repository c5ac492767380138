import { firstValueFrom } from 'rxjs';
import { z } from 'zod';
import { META } from '../../lib/connection/stateless';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import type { AuthInfo } from '../../lib/transport/transport';

// Everything a server keeps for a caller is bound to the caller's principal (issuer + sub, else
// issuer + client_id): a caller who holds another's handle (a requestState, a task id, a cached
// result) gets nothing of theirs.

const REVISION = '2026-07-28';
const ISSUER = 'https://issuer.example';

const authOf = (subject: string): AuthInfo => ({
  subject,
  scopes: ['mcp'],
  claims: { iss: ISSUER, sub: subject },
});
const alice = authOf('alice');
const mallory = authOf('mallory');

const meta = (capabilities: Record<string, unknown> = { elicitation: {} }) => ({
  [META.protocolVersion]: REVISION,
  [META.clientCapabilities]: capabilities,
  [META.clientInfo]: { name: 'spec', version: '1.0.0' },
});

interface Answer {
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string };
}

/** Serves one stateless request as a protected endpoint would hand it over, with `auth`. */
async function serveStateless(
  server: McpServer,
  method: string,
  params: Record<string, unknown>,
  options: { auth?: AuthInfo; capabilities?: Record<string, unknown> } = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    server.stateless.serve(
      { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta(options.capabilities) } },
      {
        auth: options.auth,
        notify: () => undefined,
        respond: (message: JsonRpcMessage) => resolve(message as Answer),
      },
    );
  });
}

describe('requestState is bound to the principal it was issued to', () => {
  function askingServer() {
    const runs: string[] = [];
    const server = createServer({ name: 'mrtr', version: '1.0.0' });
    server.tool({
      name: 'transfer',
      description: 'asks to confirm, then acts with the answer',
      inputSchema: z.object({ to: z.string() }),
      handler: async ({ to }, context) => {
        const answer = await firstValueFrom(
          context.elicit({
            message: `Send to ${to}?`,
            requestedSchema: { type: 'object', properties: { pin: { type: 'string' } } },
          }),
        );
        runs.push(`${context.auth?.subject ?? 'nobody'}:${String(answer.content?.pin)}`);
        return { content: [{ type: 'text', text: `sent to ${to}` }] };
      },
    });
    return { server, runs };
  }

  /** Alice's first round, and her state holding her answer (a second, unanswered round keeps it sealed). */
  async function aliceState(server: McpServer, auth: AuthInfo | undefined): Promise<string> {
    const first = await serveStateless(server, 'tools/call', { name: 'transfer', arguments: { to: 'bob' } }, { auth });
    expect(first.result?.resultType).toBe('input_required');
    return first.result!.requestState as string;
  }

  const retry = (requestState: string) => ({
    name: 'transfer',
    arguments: { to: 'bob' },
    requestState,
    inputResponses: {},
  });

  it("refuses Mallory's replay of Alice's state with his own token, and the handler never runs for him", async () => {
    const { server, runs } = askingServer();
    const state = await aliceState(server, alice);
    const replay = await serveStateless(server, 'tools/call', retry(state), { auth: mallory });
    expect(replay.error?.code).toBe(-32602);
    expect(replay.error?.message).toMatch(/requestState belongs to another principal/);
    expect(runs).toEqual([]);
    // Alice's own retry still works: her answer is in the state she holds.
    const own = await serveStateless(
      server,
      'tools/call',
      { ...retry(state), inputResponses: { 'elicitation-0': { action: 'accept', content: { pin: '1234' } } } },
      { auth: alice },
    );
    expect(own.result?.content).toEqual([{ type: 'text', text: 'sent to bob' }]);
    expect(runs).toEqual(['alice:1234']);
  });

  it('refuses a retry without auth of a state issued with auth, and one with auth of a state issued without', async () => {
    const { server, runs } = askingServer();
    const withAuth = await aliceState(server, alice);
    const anonymous = await serveStateless(server, 'tools/call', retry(withAuth));
    expect(anonymous.error?.code).toBe(-32602);
    expect(anonymous.error?.message).toMatch(/another principal/);
    const withoutAuth = await aliceState(server, undefined);
    const claimed = await serveStateless(server, 'tools/call', retry(withoutAuth), { auth: mallory });
    expect(claimed.error?.code).toBe(-32602);
    expect(runs).toEqual([]);
  });

  it('binds to the issuer too: the same sub from another issuer is another principal', async () => {
    const { server, runs } = askingServer();
    const state = await aliceState(server, alice);
    const elsewhere: AuthInfo = {
      subject: 'alice',
      scopes: [],
      claims: { iss: 'https://other.example', sub: 'alice' },
    };
    const replay = await serveStateless(server, 'tools/call', retry(state), { auth: elsewhere });
    expect(replay.error?.code).toBe(-32602);
    // Another token of the same user (other scopes) is the same principal.
    const again: AuthInfo = { ...alice, scopes: ['other'] };
    const answered = await serveStateless(
      server,
      'tools/call',
      { ...retry(state), inputResponses: { 'elicitation-0': { action: 'accept', content: { pin: '9' } } } },
      { auth: again },
    );
    expect(answered.result?.content).toBeDefined();
    expect(runs).toEqual(['alice:9']);
  });
});
