import { resolve } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { connect, createStreamableHttpClientTransport } from '../../lib/index';
import type { McpClient } from '../../lib/index';
import { built, killLeftovers, ROOT, startProgram, stopProgram } from './run-example';
import type { Running } from './run-example';

// examples/gateway.json, served by the built `rxmcp proxy` in front of the built stdio-server
// (started by the gateway) and streaming-tool (reached at STREAMING_URL).
describe('examples/gateway.json', () => {
  let streaming: Running | undefined;
  let gateway: Running | undefined;
  let client: McpClient | undefined;

  beforeAll(async () => {
    streaming = await startProgram(built('streaming-tool.ts'), [], { env: { PORT: '0' } });
    built('stdio-server.ts');
    gateway = await startProgram(
      resolve(ROOT, 'dist/lib/cli/rxmcp.js'),
      ['proxy', '--config', 'examples/gateway.json', '--http', '0'],
      { env: { STREAMING_URL: streaming.url }, urlOn: 'stderr', urlPattern: /serving \d+ upstreams at (\S+)/ },
    );
    client = await connect(createStreamableHttpClientTransport({ url: gateway.url }), {
      name: 'spec',
      version: '1.0.0',
    });
  });
  afterAll(async () => {
    client?.close();
    await stopProgram(gateway);
    await stopProgram(streaming);
    killLeftovers();
  });

  it('starts both upstreams and says so on stderr', () => {
    expect(gateway!.stderr()).toMatch(/✓ local \(stdio, 1 tool\)/);
    expect(gateway!.stderr()).toMatch(/✓ streaming \(.*1 tool\)/);
    expect(gateway!.stderr()).toMatch(/serving 2 upstreams/);
  });

  it("serves both upstreams' tools, each under its upstream's name", async () => {
    const tools = await client!.promises.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['local_add', 'streaming_count']);
    expect((await client!.promises.callTool('local_add', { a: 1, b: 2 })).content).toEqual([
      { type: 'text', text: '3' },
    ]);
  });

  it("passes the HTTP upstream's progress through to the client", async () => {
    const events = await lastValueFrom(client!.callTool('streaming_count', { to: 3, stepMs: 10 }).pipe(toArray()));
    expect(events.map((e) => (e.type === 'progress' ? e.progress : e.type))).toEqual([1, 2, 3, 'result']);
  });
});
