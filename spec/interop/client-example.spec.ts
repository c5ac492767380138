import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import pino from 'pino';
import { firstValueFrom } from 'rxjs';
import { readContext, runScenario, SCENARIOS } from '../../examples/conformance/everything-client';
import { fakeServer, LEGACY_ONLY } from '../client/fake-server';
import { SEP1034_DEFAULTS_FORM } from '../support/elicitation-forms';
import { linkedPair } from '../support/linked-pair';
import { createEverythingServer } from '../../examples/conformance/everything-server';

const CLIENT = resolve(__dirname, '../../dist/examples/conformance/everything-client.js');
const SERVER = resolve(__dirname, '../../dist/examples/conformance/everything-server.js');
const silent = pino({ level: 'silent' });

/** Runs the built example client; resolves with its exit code and stderr. */
function runExample(scenario: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLIENT, ...args], {
      env: { ...process.env, MCP_CONFORMANCE_SCENARIO: scenario },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('exit', (code) => done({ code, stderr }));
  });
}

describe('everything-client scenarios against a legacy server (in memory)', () => {
  it('[conformance.initialize] falls back from discovery to initialize, offers 2025-11-25 with client info, then closes', async () => {
    const server = fakeServer({ supportedRevisions: LEGACY_ONLY });
    await runScenario('initialize', server.clientTransport, silent);
    expect(server.connection.peerInfo).toEqual({ name: 'rxmcp-everything-client', version: '0.1.0' });
    expect(server.connection.revision).toBe('2025-11-25');
    await expect(firstValueFrom(server.connection.closed$)).resolves.toBeDefined();
  });

  it('[conformance.tools_call] lists the tools, then calls add_numbers with numbers', async () => {
    const calls: unknown[] = [];
    const server = fakeServer({
      supportedRevisions: LEGACY_ONLY,
      capabilities: { tools: {} },
      handlers: {
        'tools/list': () => ({ tools: [{ name: 'add_numbers', inputSchema: { type: 'object' } }] }),
        'tools/call': (params) => (calls.push(params), { content: [{ type: 'text', text: '8' }] }),
      },
    });
    await runScenario('tools_call', server.clientTransport, silent);
    expect(server.received).toEqual(['tools/list', 'tools/call']);
    expect(calls).toEqual([{ name: 'add_numbers', arguments: { a: expect.any(Number), b: expect.any(Number) } }]);
  });

  it('[conformance.elicitation-sep1034-client-defaults] declares elicitation and accepts with every default filled in', async () => {
    const answers: unknown[] = [];
    const server = fakeServer({
      supportedRevisions: LEGACY_ONLY,
      capabilities: { tools: {} },
      // The receiving side skips result validation: see server-requests.spec (content numbers).
      validateResults: false,
      handlers: {
        'tools/call': async (_params, context) => {
          const answer = await firstValueFrom(context.request('elicitation/create', { ...SEP1034_DEFAULTS_FORM }));
          answers.push(answer);
          return { content: [{ type: 'text', text: 'ok' }] };
        },
      },
    });
    await runScenario('elicitation-sep1034-client-defaults', server.clientTransport, silent);
    expect(server.connection.peerCapabilities).toEqual({ elicitation: {} });
    expect(answers).toEqual([
      { action: 'accept', content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true } },
    ]);
  });

  it('[conformance.sse-retry] calls test_reconnection', async () => {
    const names: unknown[] = [];
    const server = fakeServer({
      supportedRevisions: LEGACY_ONLY,
      capabilities: { tools: {} },
      handlers: { 'tools/call': (params) => (names.push(params.name), { content: [] }) },
    });
    await runScenario('sse-retry', server.clientTransport, silent);
    expect(names).toEqual(['test_reconnection']);
    expect(Object.keys(SCENARIOS)).toEqual([
      'initialize',
      'tools_call',
      'elicitation-sep1034-client-defaults',
      'sse-retry',
      'request-metadata',
      'sep-2322-client-request-state',
      'http-standard-headers',
      'http-custom-headers',
      'http-invalid-tool-headers',
      'json-schema-ref-no-deref',
      'sep-2640-client-no-prefetch',
      'sep-2640-client-verify-digest',
      'sep-2640-client-verify-size',
      'sep-2640-client-verify-frontmatter',
      'json-schema-2020-12-preservation',
    ]);
  });

  it('fails the run when the server answers a scenario call with an error', async () => {
    const server = fakeServer({
      supportedRevisions: LEGACY_ONLY,
      capabilities: { tools: {} },
      handlers: { 'tools/list': () => ({ tools: [{ name: 'add_numbers', inputSchema: { type: 'object' } }] }) },
    });
    await expect(runScenario('tools_call', server.clientTransport, silent)).rejects.toMatchObject({ code: -32601 });
    await expect(firstValueFrom(server.connection.closed$)).resolves.toBeDefined();
  });
});

describe('everything-client scenarios against a modern server (in memory)', () => {
  const focal = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    $defs: { address: { $anchor: 'addr', type: 'object' } },
    properties: { home: { $ref: '#/$defs/address' } },
    additionalProperties: false,
    allOf: [{ anyOf: [{ required: ['home'] }] }],
    if: { required: ['home'] },
    then: {},
    else: {},
  };

  it('[conformance.json-schema-2020-12-preservation] echoes the focal tool’s inputSchema exactly as listed', async () => {
    const echoed: unknown[] = [];
    const server = fakeServer({
      capabilities: { tools: {} },
      handlers: {
        'tools/list': () => ({
          tools: [
            { name: 'json_schema_2020_12_tool', inputSchema: focal },
            { name: 'json_schema_echo', inputSchema: { type: 'object', properties: { schema: { type: 'object' } } } },
          ],
        }),
        'tools/call': (params) => (echoed.push((params.arguments as { schema: unknown }).schema), { content: [] }),
      },
    });
    await runScenario('json-schema-2020-12-preservation', server.clientTransport, silent);
    expect(server.connection.revision).toBeUndefined();
    expect(echoed).toEqual([focal]);
  });

  it('[conformance.http-custom-headers] makes the calls the context lists, with their arguments', async () => {
    const calls: unknown[] = [];
    const server = fakeServer({
      capabilities: { tools: {} },
      handlers: {
        'tools/list': () => ({ tools: [{ name: 't', inputSchema: { type: 'object' } }] }),
        'tools/call': (params) => (calls.push(params.arguments), { content: [] }),
      },
    });
    const context = { toolCalls: [{ name: 't', arguments: { region: 'eu', verbose: null } }, { name: 't' }] };
    await runScenario('http-custom-headers', server.clientTransport, silent, context);
    expect(calls).toEqual([{ region: 'eu', verbose: null }, {}]);
  });

  it('reads MCP_CONFORMANCE_CONTEXT leniently', () => {
    expect(readContext(undefined)).toEqual({});
    expect(readContext('')).toEqual({});
    expect(readContext('{"toolCalls":[]}')).toEqual({ toolCalls: [] });
    expect(() => readContext('{')).toThrow(SyntaxError);
  });
});

describe('everything-client, built, over stdio', () => {
  beforeAll(() => {
    for (const file of [CLIENT, SERVER])
      if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
  });

  it('runs the initialize scenario against a stdio server and exits 0', async () => {
    const { code, stderr } = await runExample('initialize', [process.execPath, SERVER]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('exits 1 and says why when a scenario fails', async () => {
    const { code, stderr } = await runExample('tools_call', [resolve(__dirname, 'no-such-server')]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/tools_call failed: /);
  });
});

describe('everything-client skills scenarios against the example server (in memory)', () => {
  /** The example server, recording the URIs it is asked to read. */
  function skillsServer() {
    const server = createEverythingServer({ logger: silent });
    const reads: string[] = [];
    server.use((request, _context, next) => {
      if (request.method === 'resources/read') reads.push(request.params.uri as string);
      return next();
    });
    const { client, server: serverSide } = linkedPair();
    server.connect(serverSide);
    return { client, reads };
  }

  it('[conformance.sep-2640-client-no-prefetch] lists the skills and reads none of their files', async () => {
    const { client, reads } = skillsServer();
    await runScenario('sep-2640-client-no-prefetch', client, silent);
    expect(reads).toEqual([]);
  });

  it('[conformance.sep-2640-client-verify-digest] loads the first skill, then reads its other files once verified', async () => {
    const { client, reads } = skillsServer();
    await runScenario('sep-2640-client-verify-digest', client, silent);
    expect(reads).toEqual(['skill://acme/release-notes/SKILL.md', 'skill://acme/release-notes/templates/RELEASE.md']);
  });
});
