import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { CreateMessageRequest, ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { resolve } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { assertBuilt, CLI, runCli, stopAll, textOf, writeServers } from './cli-process';
import type { CliRun } from './cli-process';

// `rxmcp proxy`, the built command, between the official SDK client and an rxmcp upstream that asks
// its client for sampling, elicitation (form and URL) and roots while its tools run: the upstream
// pinned to a handshake revision (it sends requests) and to the modern one (it answers
// `input_required`). And results in the caller's revision: no caching hints before 2026-07-28.

const ASKING_SERVER = resolve(__dirname, '../fixtures/asking-server.js');

beforeAll(assertBuilt);
afterAll(stopAll);

function askingUpstream(revision?: string) {
  return writeServers({
    mcpServers: {
      up: { command: process.execPath, args: [ASKING_SERVER, ...(revision ? ['--revision', revision] : [])] },
    },
  });
}

describe.each(['2025-11-25', '2026-07-28'])('rxmcp proxy --stdio with an upstream of %s that asks', (revision) => {
  let servers: ReturnType<typeof writeServers>;
  let client: Client;
  let stderr = '';
  const sampled: Array<CreateMessageRequest['params']> = [];
  const elicited: Array<ElicitRequest['params']> = [];
  const logged: unknown[] = [];

  beforeAll(async () => {
    servers = askingUpstream(revision);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'proxy', '--config', servers.file, '--stdio'],
      stderr: 'pipe',
    });
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    client = new Client(
      { name: 'sdk-downstream', version: '1.0.0' },
      { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} } },
    );
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      sampled.push(request.params);
      const asked = request.params.messages[0]!.content as { text: string };
      return { role: 'assistant', content: { type: 'text', text: `model says ${asked.text}` }, model: 'm' };
    });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicited.push(request.params);
      return request.params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'ada' } };
    });
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => void logged.push(note.params.data));
    await client.connect(transport);
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    servers?.remove();
  });

  it('answers the upstream’s sampling and form elicitation with the SDK client’s handlers, and relays its log', async () => {
    const result = await client.callTool({ name: 'up_ask', arguments: { prompt: 'the weather' } });
    expect(textOf(result)).toBe('sampled: model says the weather; elicited: accept {"name":"ada"}');
    expect(result.isError).toBeFalsy();
    expect(sampled).toHaveLength(1);
    expect(sampled[0]!.messages[0]!.content).toEqual({ type: 'text', text: 'the weather' });
    expect(elicited).toHaveLength(1);
    expect(elicited[0]).toMatchObject({ message: 'Your name?', requestedSchema: { required: ['name'] } });
    expect(stderr).not.toContain('did not declare');
    expect(logged).toContain('asking about the weather');
  });

  it('answers a URL-mode elicitation, with the elicitationId the caller’s 2025-11-25 requires', async () => {
    elicited.length = 0;
    const result = await client.callTool({ name: 'up_visit', arguments: {} });
    expect(textOf(result)).toBe('visited: accept');
    expect(elicited).toEqual([
      expect.objectContaining({ mode: 'url', url: 'https://example.com/sign-in', elicitationId: expect.any(String) }),
    ]);
  });

  it('answers the upstream’s roots/list with the caller’s roots', async () => {
    const result = await client.callTool({ name: 'up_roots', arguments: {} });
    expect(textOf(result)).toBe('roots: file:///work');
  });
});

describe('rxmcp proxy --http with an upstream of 2026-07-28: resources/read in the caller’s revision', () => {
  let servers: ReturnType<typeof writeServers>;
  let cli: CliRun;
  let url: string;
  const clients: McpClient[] = [];

  beforeAll(async () => {
    servers = askingUpstream();
    cli = runCli(['proxy', '--config', servers.file, '--http', '0']);
    url = (await cli.stderrMatch(/rxmcp: serving 1 upstream at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/))[1]!;
  }, 30_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await cli?.stop();
    servers?.remove();
  });

  const readAs = async (protocolVersion: '2025-06-18' | '2026-07-28') => {
    const client = await connect(createStreamableHttpClientTransport({ url: new URL(url) }), {
      name: `reader-${protocolVersion}`,
      version: '1.0.0',
      protocolVersion,
    });
    clients.push(client);
    expect(client.revision).toBe(protocolVersion);
    return firstValueFrom(client.request('resources/read', { uri: 'up+note://greeting' }, { checkResult: false }));
  };

  it('gives a 2025-06-18 session the contents without the caching hints a 2026-07-28 caller gets', async () => {
    const old = await readAs('2025-06-18');
    expect(old.contents).toEqual([{ uri: 'up+note://greeting', mimeType: 'text/plain', text: 'hello' }]);
    expect(old).not.toHaveProperty('ttlMs');
    expect(old).not.toHaveProperty('cacheScope');
    expect(old).not.toHaveProperty('resultType');
    // The upstream's own hints, not the proxy's defaults.
    const modern = await readAs('2026-07-28');
    expect(modern.contents).toEqual(old.contents);
    expect(modern).toMatchObject({ ttlMs: 5000, cacheScope: 'private' });
  });

  it('gives the official SDK client (2025-11-25) none either', async () => {
    const sdk = new Client({ name: 'sdk-reader', version: '1.0.0' });
    await sdk.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const result = await sdk.readResource({ uri: 'up+note://greeting' });
      expect(result.contents).toHaveLength(1);
      expect(Object.keys(result).sort()).toEqual(['contents']);
    } finally {
      await sdk.close();
    }
  });
});
