import { filter, firstValueFrom, lastValueFrom, NEVER, Subject, toArray } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { JsonRpcError } from '../../lib/jsonrpc/errors';
import { aggregate } from '../../lib/proxy/aggregate';
import type { McpProxy } from '../../lib/proxy/proxy';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { until } from '../support/until';

const INFO = { name: 'aggregate-spec', version: '1.0.0' };

async function clientOf(target: { connect(transport: ReturnType<typeof createInMemoryPair>[1]): unknown }) {
  const [clientSide, serverSide] = createInMemoryPair();
  target.connect(serverSide);
  return connect(clientSide, { ...INFO, protocolVersion: '2025-11-25' });
}

const textOf = (result: { content: ReadonlyArray<{ type: string; text?: unknown }> }) =>
  result.content.map((block) => String(block.text)).join('');

/** An upstream with a tool, a prompt, a resource and a template, all named alike in each. */
function upstreamServer(label: string, cancelled: Subject<string>, started: Subject<string>): McpServer {
  const server = createServer({ name: label, version: '1.0.0' });
  server.tool({
    name: 'whoami',
    inputSchema: z.object({}),
    handler: async (_args, context) => {
      context.progress(1, 2);
      return textResult(label);
    },
  });
  server.tool({
    name: 'wait',
    inputSchema: z.object({}),
    handler: (_args, context) => {
      context.signal.addEventListener('abort', () => cancelled.next(label));
      started.next(label);
      return NEVER;
    },
  });
  server.prompt({
    name: 'greet',
    arguments: [{ name: 'who', required: true, complete: () => [`${label}-ada`, `${label}-bob`] }],
    handler: ({ who }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `${label} greets ${who}` } }] }),
  });
  server.resource({ uri: 'mem://readme', name: 'readme', mimeType: 'text/plain', text: `${label} readme` });
  server.resourceTemplate({
    uriTemplate: 'mem://notes/{id}',
    name: 'note',
    read: (uri, { id }) => ({ contents: [{ uri, text: `${label} note ${String(id)}` }] }),
  });
  return server;
}

describe('aggregate of two upstreams', () => {
  const cancelled = new Subject<string>();
  const started = new Subject<string>();
  let alpha: McpServer;
  let beta: McpServer;
  let alphaClient: McpClient;
  let betaClient: McpClient;
  let front: McpProxy;
  let downstream: McpClient;

  beforeEach(async () => {
    alpha = upstreamServer('alpha', cancelled, started);
    beta = upstreamServer('beta', cancelled, started);
    alphaClient = await clientOf(alpha);
    betaClient = await clientOf(beta);
    front = aggregate({ alpha: alphaClient, beta: betaClient }, { name: 'hub', version: '1.0.0' });
    downstream = await clientOf(front);
  });

  afterEach(() => {
    downstream.close();
    front.close();
    alphaClient.close();
    betaClient.close();
    alpha.close();
    beta.close();
  });

  it('lists both upstreams’ tools and prompts under their namespaces', async () => {
    expect(downstream.serverInfo.name).toBe('hub');
    const tools = await downstream.promises.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['alpha_wait', 'alpha_whoami', 'beta_wait', 'beta_whoami']);
    const prompts = await downstream.promises.listPrompts();
    expect(prompts.map((prompt) => prompt.name).sort()).toEqual(['alpha_greet', 'beta_greet']);
  });

  it('calls each upstream’s tool by its namespaced name, with progress', async () => {
    const events = await lastValueFrom(downstream.callTool('beta_whoami', {}).pipe(toArray()));
    expect(events.map((event) => event.type)).toEqual(['progress', 'result']);
    const last = events.at(-1)!;
    expect(last.type === 'result' && textOf(last.result)).toBe('beta');
    expect(textOf(await downstream.promises.callTool('alpha_whoami', {}))).toBe('alpha');
  });

  it('answers -32602 naming a tool no upstream serves', async () => {
    const failure = await downstream.promises.callTool('gamma_whoami', {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(JsonRpcError);
    expect((failure as JsonRpcError).code).toBe(-32602);
    expect((failure as JsonRpcError).message).toContain('gamma_whoami');
  });

  it('cancels the call on the right upstream', async () => {
    const observed = firstValueFrom(cancelled);
    const running = firstValueFrom(started);
    const call = downstream.callTool('beta_wait', {}).subscribe();
    await expect(running).resolves.toBe('beta');
    call.unsubscribe();
    await expect(observed).resolves.toBe('beta');
  });

  it('rewrites resource URIs and templates so that they round-trip', async () => {
    const resources = await downstream.promises.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual(['alpha+mem://readme', 'beta+mem://readme']);
    const templates = await downstream.promises.listResourceTemplates();
    expect(templates.map((template) => template.uriTemplate).sort()).toEqual([
      'alpha+mem://notes/{id}',
      'beta+mem://notes/{id}',
    ]);
    const read = await downstream.promises.readResource('beta+mem://readme');
    expect(read.contents[0]).toMatchObject({ uri: 'beta+mem://readme', text: 'beta readme' });
    const note = await downstream.promises.readResource('alpha+mem://notes/7');
    expect(note.contents[0]).toMatchObject({ uri: 'alpha+mem://notes/7', text: 'alpha note 7' });
  });

  it('gets prompts and completes their arguments on the right upstream', async () => {
    const prompt = await downstream.promises.getPrompt('beta_greet', { who: 'ada' });
    expect(prompt.messages[0]!.content).toMatchObject({ text: 'beta greets ada' });
    const completion = await downstream.promises.complete({
      ref: { type: 'ref/prompt', name: 'alpha_greet' },
      argument: { name: 'who', value: '' },
    });
    expect(completion.completion.values).toEqual(['alpha-ada', 'alpha-bob']);
  });

  it('keeps serving when one upstream goes away, and says its list changed', async () => {
    await firstValueFrom(downstream.tools$);
    const changed = firstValueFrom(
      downstream.connection.notifications$.pipe(
        filter((message) => message.method === 'notifications/tools/list_changed'),
      ),
    );
    alphaClient.close();
    await changed;
    await until(() => alphaClient.state === 'shutdown');
    const tools = await downstream.promises.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['beta_wait', 'beta_whoami']);
    expect(textOf(await downstream.promises.callTool('beta_whoami', {}))).toBe('beta');
    const failure = await downstream.promises.callTool('alpha_whoami', {}).catch((error: unknown) => error);
    // The upstream is named, with what happened to it: its tools are not unknown, they are unavailable.
    expect((failure as JsonRpcError).code).toBe(-32000);
    expect((failure as JsonRpcError).message).toBe('Upstream "alpha" is unavailable: its connection closed');
  });

  it('refuses an upstream name that cannot prefix a URI', () => {
    expect(() => aggregate({ 'has space': alphaClient })).toThrow(/letters, digits/);
  });
});
