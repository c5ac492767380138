import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import type { ClientRevision } from '../../lib/client/client-api';
import { META } from '../../lib/connection/modern';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import { createRequestHandlers } from '../../lib/server/request-handlers';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { until } from '../support/until';

const MODERN: ClientRevision = '2026-07-28';

/** A definition with one tool and one prompt, both named after it. */
function definition(name: string): McpServer {
  const server = createServer({ name, version: '1.0.0' });
  server.tool({ name: `${name}-tool`, handler: () => ({ content: [{ type: 'text', text: `${name} ran` }] }) });
  server.prompt({
    name: `${name}-prompt`,
    arguments: [{ name: 'topic', complete: (value) => [`${name}:${value}`] }],
    handler: () => ({ messages: [] }),
  });
  return server;
}

async function clientOf(server: McpServer, protocolVersion: ClientRevision): Promise<McpClient> {
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(serverSide);
  return connect(clientSide, { name: 'shared-handlers', version: '1.0.0', protocolVersion });
}

/** Serves one request through the definition's modern endpoint (what Streamable HTTP hands it). */
async function serveModern(server: McpServer, method: string, params: Record<string, unknown>) {
  const answers: JsonRpcMessage[] = [];
  server.modern.serve(
    {
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          [META.protocolVersion]: MODERN,
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: 'raw', version: '1' },
        },
      },
    },
    { notify: () => undefined, respond: (message: JsonRpcMessage) => answers.push(message) },
  );
  await until(() => answers.length === 1);
  return answers[0] as { result?: Record<string, unknown>; error?: unknown };
}

describe('request handlers shared by every server definition', () => {
  const clients: McpClient[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });

  it('are the same functions in every record, so a definition holds no handler of its own', () => {
    const first = createRequestHandlers();
    const second = createRequestHandlers();
    expect(second).not.toBe(first);
    expect(Object.keys(second)).toEqual(Object.keys(first));
    for (const method of Object.keys(first)) expect(second[method]).toBe(first[method]);
  });

  it.each<ClientRevision>(['2025-11-25', MODERN])(
    'serve each definition its own registries, over a connection of revision %s',
    async (protocolVersion) => {
      const [a, b] = [definition('a'), definition('b')];
      const [toA, toB] = [await clientOf(a, protocolVersion), await clientOf(b, protocolVersion)];
      clients.push(toA, toB);
      expect((await toA.promises.listTools()).map((tool) => tool.name)).toEqual(['a-tool']);
      expect((await toB.promises.listTools()).map((tool) => tool.name)).toEqual(['b-tool']);
      expect(await toB.promises.callTool('b-tool')).toMatchObject({ content: [{ text: 'b ran' }] });
      const completion = await toA.promises.complete({
        ref: { type: 'ref/prompt', name: 'a-prompt' },
        argument: { name: 'topic', value: 'x' },
      });
      expect(completion.completion.values).toEqual(['a:x']);
    },
  );

  it("serve each definition's modern endpoint its own registries, with no session", async () => {
    const [a, b] = [definition('a'), definition('b')];
    const listed = await serveModern(b, 'tools/list', {});
    expect((listed.result?.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(['b-tool']);
    const called = await serveModern(a, 'tools/call', { name: 'a-tool', arguments: {} });
    expect(called.result).toMatchObject({ content: [{ type: 'text', text: 'a ran' }] });
    const completed = await serveModern(b, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'b-prompt' },
      argument: { name: 'topic', value: 'y' },
    });
    expect(completed.result).toMatchObject({ completion: { values: ['b:y'] } });
    expect(a.sessions.size + b.sessions.size).toBe(0);
  });
});
