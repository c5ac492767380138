import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import type { JsonRpcError } from '../../lib/jsonrpc/errors';
import { aggregate } from '../../lib/proxy/aggregate';
import type { McpProxy } from '../../lib/proxy/proxy';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';

const INFO = { name: 'aggregate-policies-spec', version: '1.0.0' };

async function clientOf(target: { connect(transport: ReturnType<typeof createInMemoryPair>[1]): unknown }) {
  const [clientSide, serverSide] = createInMemoryPair();
  target.connect(serverSide);
  return connect(clientSide, { ...INFO, protocolVersion: '2025-11-25' });
}

const textOf = (result: { content: ReadonlyArray<{ type: string; text?: unknown }> }) =>
  result.content.map((block) => String(block.text)).join('');

const failureOf = (promise: Promise<unknown>) =>
  promise.then(() => undefined).catch((error: unknown) => error as JsonRpcError);

/** A file server: its read tool echoes the arguments it got. */
function filesServer(): McpServer {
  const server = createServer({ name: 'files', version: '1.0.0' });
  server.tool({
    name: 'read_file',
    inputSchema: z.object({ path: z.string(), root: z.string(), encoding: z.string() }),
    handler: (args) => textResult(JSON.stringify(args)),
  });
  server.tool({ name: 'write_file', inputSchema: z.object({}), handler: () => textResult('written') });
  server.tool({ name: 'whoami', inputSchema: z.object({}), handler: () => textResult('files') });
  server.prompt({ name: 'summarize', handler: () => ({ messages: [] }) });
  server.resource({ uri: 'mem://notes', name: 'notes', text: 'notes' });
  server.resource({ uri: 'secret://keys', name: 'keys', text: 'keys' });
  return server;
}

/** A server with a `whoami` tool answering its label, and a `label` tool of its own. */
function labelled(label: string): McpServer {
  const server = createServer({ name: label, version: '1.0.0' });
  server.tool({ name: 'whoami', inputSchema: z.object({}), handler: () => textResult(label) });
  server.tool({ name: `${label}_only`, inputSchema: z.object({}), handler: () => textResult(label) });
  server.resource({ uri: `${label}://readme`, name: 'readme', text: `${label} readme` });
  return server;
}

describe('aggregate with per-upstream policies', () => {
  let servers: McpServer[];
  let clients: McpClient[];
  let front: McpProxy | undefined;
  let downstream: McpClient | undefined;

  beforeEach(async () => {
    servers = [filesServer(), labelled('web'), labelled('wiki')];
    clients = await Promise.all(servers.map(clientOf));
  });

  afterEach(() => {
    downstream?.close();
    front?.close();
    for (const client of clients) client.close();
    for (const server of servers) server.close();
    downstream = front = undefined;
  });

  async function serve(proxy: McpProxy): Promise<McpClient> {
    front = proxy;
    downstream = await clientOf(proxy);
    return downstream;
  }

  it('shows only the entries a filter keeps, and refuses the others', async () => {
    const hub = await serve(
      aggregate({
        files: { upstream: clients[0]!, tools: { exclude: 'write_*' }, resources: { include: ['mem://*'] } },
        web: { upstream: clients[1]!, tools: { include: (name) => name === 'whoami' } },
      }),
    );
    const tools = await hub.promises.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['files_read_file', 'files_whoami', 'web_whoami']);
    const resources = await hub.promises.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(['files+mem://notes', 'web+web://readme']);
    const refused = await failureOf(hub.promises.callTool('files_write_file', {}));
    expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining('files_write_file') });
    const unread = await failureOf(hub.promises.readResource('files+secret://keys'));
    expect(unread).toMatchObject({ code: -32602, message: expect.stringContaining('files+secret://keys') });
  });

  it('renames a tool and a prompt, and calls the upstream under its own name', async () => {
    const hub = await serve(
      aggregate({
        files: {
          upstream: clients[0]!,
          tools: { rename: { whoami: 'name' } },
          prompts: { rename: { summarize: 'tldr' } },
        },
      }),
    );
    const tools = await hub.promises.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['files_read_file', 'files_write_file', 'files_name']);
    expect(textOf(await hub.promises.callTool('files_name', {}))).toBe('files');
    expect(await failureOf(hub.promises.callTool('files_whoami', {}))).toMatchObject({ code: -32602 });
    const prompts = await hub.promises.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['files_tldr']);
    await expect(hub.promises.getPrompt('files_tldr')).resolves.toMatchObject({ messages: [] });
  });

  it('hides an argument from the schema and fills it in, and defaults another', async () => {
    const hub = await serve(
      aggregate({
        files: {
          upstream: clients[0]!,
          tools: { arguments: { read_file: { root: { hidden: '/srv' }, encoding: { default: 'utf8' } } } },
        },
      }),
    );
    const read = (await hub.promises.listTools()).find((tool) => tool.name === 'files_read_file')!;
    expect(Object.keys(read.inputSchema.properties ?? {})).toEqual(['path', 'encoding']);
    expect(read.inputSchema.properties?.encoding).toMatchObject({ type: 'string', default: 'utf8' });
    expect(read.inputSchema.required).toEqual(['path']);
    // The caller cannot choose a hidden argument: the aggregate's value wins.
    const sent = await hub.promises.callTool('files_read_file', { path: 'a.txt', root: '/etc' });
    expect(JSON.parse(textOf(sent))).toEqual({ path: 'a.txt', root: '/srv', encoding: 'utf8' });
    const chosen = await hub.promises.callTool('files_read_file', { path: 'b.txt', encoding: 'latin1' });
    expect(JSON.parse(textOf(chosen))).toEqual({ path: 'b.txt', root: '/srv', encoding: 'latin1' });
  });

  it('applies a "*" argument policy to every tool that declares the argument', async () => {
    const hub = await serve(
      aggregate({ files: { upstream: clients[0]!, tools: { arguments: { '*': { root: { hidden: '/data' } } } } } }),
    );
    const tools = await hub.promises.listTools();
    expect(tools.find((tool) => tool.name === 'files_read_file')!.inputSchema.properties).not.toHaveProperty('root');
    const sent = await hub.promises.callTool('files_read_file', { path: 'c', encoding: 'utf8' });
    expect(JSON.parse(textOf(sent))).toMatchObject({ root: '/data' });
    // A tool without the argument is called as it is.
    expect(textOf(await hub.promises.callTool('files_whoami', {}))).toBe('files');
  });

  it('shows an upstream with an empty namespace under its own names and URIs', async () => {
    const hub = await serve(aggregate({ files: clients[0]!, web: { upstream: clients[1]!, namespace: '' } }));
    const tools = await hub.promises.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['files_whoami', 'whoami', 'web_only', 'files_read_file']),
    );
    expect(textOf(await hub.promises.callTool('whoami', {}))).toBe('web');
    const read = await hub.promises.readResource('web://readme');
    expect(read.contents[0]).toMatchObject({ uri: 'web://readme', text: 'web readme' });
    expect(textOf(await hub.promises.callTool('files_whoami', {}))).toBe('files');
  });

  it('prefixes colliding names with the upstream key by default', async () => {
    const hub = await serve(
      aggregate({ web: { upstream: clients[1]!, namespace: '' }, wiki: { upstream: clients[2]!, namespace: '' } }),
    );
    const names = (await hub.promises.listTools()).map((tool) => tool.name).sort();
    expect(names).toEqual(['web_only', 'web_whoami', 'wiki_only', 'wiki_whoami']);
    expect(textOf(await hub.promises.callTool('wiki_whoami', {}))).toBe('wiki');
    expect(await failureOf(hub.promises.callTool('whoami', {}))).toMatchObject({ code: -32602 });
  });

  it('lets the first upstream keep a colliding name with "first"', async () => {
    const hub = await serve(
      aggregate(
        { web: { upstream: clients[1]!, namespace: '' }, wiki: { upstream: clients[2]!, namespace: '' } },
        { collisions: 'first' },
      ),
    );
    const names = (await hub.promises.listTools()).map((tool) => tool.name).sort();
    expect(names).toEqual(['web_only', 'whoami', 'wiki_only']);
    expect(textOf(await hub.promises.callTool('whoami', {}))).toBe('web');
  });

  it('leaves a colliding name out with "error", and logs it', async () => {
    const logged: Array<Record<string, unknown>> = [];
    const capture = (_message: string, record: Record<string, unknown>) => logged.push(record);
    const hub = await serve(
      aggregate(
        { web: { upstream: clients[1]!, namespace: '' }, wiki: { upstream: clients[2]!, namespace: '' } },
        { collisions: 'error', logger: { error: capture, warn: capture, info: () => undefined } },
      ),
    );
    const names = (await hub.promises.listTools()).map((tool) => tool.name).sort();
    expect(names).toEqual(['web_only', 'wiki_only']);
    expect(logged).toContainEqual(
      expect.objectContaining({ msg: 'name collision between upstreams', name: 'whoami', upstreams: ['web', 'wiki'] }),
    );
    expect(await failureOf(hub.promises.callTool('whoami', {}))).toMatchObject({ code: -32602 });
  });

  it('settles a collision with a rename', async () => {
    const hub = await serve(
      aggregate(
        {
          web: { upstream: clients[1]!, namespace: '' },
          wiki: { upstream: clients[2]!, namespace: '', tools: { rename: { whoami: 'wiki_who' } } },
        },
        { collisions: 'error' },
      ),
    );
    const names = (await hub.promises.listTools()).map((tool) => tool.name).sort();
    expect(names).toEqual(['web_only', 'whoami', 'wiki_only', 'wiki_who']);
    expect(textOf(await hub.promises.callTool('wiki_who', {}))).toBe('wiki');
  });

  it('uses the configured separator', async () => {
    const hub = await serve(aggregate({ files: clients[0]! }, { separator: '.' }));
    expect(textOf(await hub.promises.callTool('files.whoami', {}))).toBe('files');
  });

  it('refuses at construction what cannot work', () => {
    expect(() =>
      aggregate({ a: { upstream: clients[1]!, namespace: 'x' }, b: { upstream: clients[2]!, namespace: 'x' } }),
    ).toThrow('Upstreams "a" and "b" share the namespace "x"');
    expect(() => aggregate({ a: { upstream: clients[1]!, tools: { rename: { one: 'same', two: 'same' } } } })).toThrow(
      'Upstream "a": the tools "one" and "two" are both renamed "same"',
    );
    expect(() => aggregate({ a: { upstream: clients[1]!, sharing: 'perSession' } })).toThrow(/needs a connector/);
    expect(() => aggregate({ a: { upstream: 42 as never } })).toThrow(/neither a connected client nor a connector/);
  });
});
