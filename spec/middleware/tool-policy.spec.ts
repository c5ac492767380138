import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { lastValueFrom, of } from 'rxjs';
import { ErrorCode } from '../../lib/jsonrpc/errors';
import type { McpServer } from '../../lib/server/server';
import type { ServerContext } from '../../lib/server/server-context';
import { toolPolicy } from '../../lib/server/tool-policy';
import type { ToolPolicyOptions } from '../../lib/server/tool-policy';
import type { AuthInfo } from '../../lib/transport/transport';
import { authenticated } from '../support/authenticated';
import { linkedPair } from '../support/linked-pair';
import { clientOf, demoServer, textOf } from './harness';

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const caller = (scopes: string[], claims: Record<string, unknown> = {}): AuthInfo => ({
  subject: 'alice',
  scopes,
  claims: { iss: 'https://issuer.example', ...claims },
});

let clients: McpClient[] = [];
afterEach(() => {
  for (const client of clients) client.close();
  clients = [];
});

async function sessionAs(server: McpServer, auth: AuthInfo | undefined): Promise<McpClient> {
  let client: McpClient;
  if (auth === undefined) client = await clientOf(server);
  else {
    const pair = linkedPair();
    server.connect(authenticated(pair.server, auth));
    client = await connect(pair.client, { name: 'policy-client', version: '1.0.0', protocolVersion: '2025-11-25' });
  }
  clients.push(client);
  return client;
}

const toolNames = async (client: McpClient) => (await client.promises.listTools()).map((tool) => tool.name).sort();

function guarded(options: Partial<ToolPolicyOptions> = {}) {
  return demoServer({
    middleware: [
      toolPolicy({ tools: { echo: { scopes: ['echo:use'] }, broken: { roles: ['admin', 'ops'] } }, ...options }),
    ],
  });
}

describe('toolPolicy', () => {
  it('hides a tool from a caller without its scope and refuses its call before the handler runs', async () => {
    const { server, seen } = guarded();
    const client = await sessionAs(server, caller([]));
    expect(await toolNames(client)).toEqual(['hang', 'steps']);
    expect(await failureOf(client.promises.callTool('echo', { text: 'x' }))).toMatchObject({
      code: ErrorCode.Forbidden,
      message: 'Forbidden: tool echo needs the scope echo:use',
    });
    expect(await failureOf(client.promises.callTool('broken'))).toMatchObject({
      code: -32003,
      message: 'Forbidden: tool broken needs one of the roles admin ops',
    });
    expect(seen.handlerRuns).toBe(0);
    expect(seen.brokenRuns).toBe(0);
  });

  it('lists and runs a tool for a caller with its scope, and one with a role from the roles claim', async () => {
    const { server, seen } = guarded();
    const client = await sessionAs(server, caller(['echo:use'], { roles: ['ops'] }));
    expect(await toolNames(client)).toEqual(['broken', 'echo', 'hang', 'steps']);
    expect(textOf(await client.promises.callTool('echo', { text: 'ok' }))).toBe('ok');
    expect(await client.promises.callTool('broken')).toMatchObject({ isError: true });
    expect([seen.handlerRuns, seen.brokenRuns]).toEqual([1, 1]);
  });

  it('reads roles from another claim, as a space-separated string or at a dotted path', async () => {
    const spaced = guarded({ rolesClaim: 'groups' });
    const byString = await sessionAs(spaced.server, caller([], { groups: 'dev admin', roles: [] }));
    expect(await toolNames(byString)).toContain('broken');
    const nested = guarded({ rolesClaim: 'realm_access.roles' });
    const byPath = await sessionAs(nested.server, caller([], { realm_access: { roles: ['ops'] } }));
    expect(await toolNames(byPath)).toContain('broken');
    const without = await sessionAs(nested.server, caller([], { roles: ['ops'] }));
    expect(await toolNames(without)).not.toContain('broken');
  });

  it('shows an anonymous caller only the tools without a rule', async () => {
    const { server, seen } = guarded();
    const client = await sessionAs(server, undefined);
    expect(await toolNames(client)).toEqual(['hang', 'steps']);
    expect(await failureOf(client.promises.callTool('echo', { text: 'x' }))).toMatchObject({ code: -32003 });
    expect(seen.handlerRuns).toBe(0);
  });

  it('keeps the rules it was made with, and gives no rule to a name the rules object inherits', async () => {
    const tools: Record<string, { scopes: string[] }> = { echo: { scopes: ['echo:use'] } };
    const { server } = demoServer({ middleware: [toolPolicy({ tools })] });
    delete tools.echo;
    tools.steps = { scopes: ['steps:use'] };
    const client = await sessionAs(server, caller([]));
    expect(await toolNames(client)).toEqual(['broken', 'hang', 'steps']);
    expect(await failureOf(client.promises.callTool('echo', { text: 'x' }))).toMatchObject({ code: -32003 });

    const inheriting = Object.create({ echo: { scopes: ['x'] } }) as Record<string, { scopes: string[] }>;
    const inherited = demoServer({ middleware: [toolPolicy({ tools: inheriting })] });
    const open = await sessionAs(inherited.server, caller([]));
    expect(await toolNames(open)).toEqual(['broken', 'echo', 'hang', 'steps']);
  });

  it('reads the caller only for a tool with a rule, on a call and in a listing', async () => {
    let reads = 0;
    const context = {
      get auth(): AuthInfo {
        reads++;
        return caller([]);
      },
    } as unknown as ServerContext;
    const policy = toolPolicy({ tools: { deploy: { scopes: ['deploy'] } } });
    const run = (method: string, params: Record<string, unknown>, result: Record<string, unknown>) =>
      lastValueFrom(policy({ method, params }, context, () => of(result)));

    await run('tools/call', { name: 'echo' }, { content: [] });
    const listed = await run('tools/list', {}, { tools: [{ name: 'echo' }, { name: 'steps' }] });
    expect([reads, listed]).toEqual([0, { tools: [{ name: 'echo' }, { name: 'steps' }] }]);

    expect(await failureOf(run('tools/call', { name: 'deploy' }, { content: [] }))).toMatchObject({ code: -32003 });
    const hidden = await run('tools/list', {}, { tools: [{ name: 'echo' }, { name: 'deploy' }] });
    expect([reads, hidden]).toEqual([2, { tools: [{ name: 'echo' }] }]);
  });
});
