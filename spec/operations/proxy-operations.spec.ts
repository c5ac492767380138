import { parseArgs } from '../../lib/cli/args';
import { serveProxy } from '../../lib/cli/serve';
import type { Serving } from '../../lib/cli/serve';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import type { McpProxy } from '../../lib/proxy/front';
import { createServer } from '../../lib/server/server';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';

describe('rxmcp proxy --http: operations', () => {
  let serving: Serving | undefined;
  let client: McpClient | undefined;
  afterEach(async () => {
    await client?.close();
    await serving?.close();
    [client, serving] = [undefined, undefined];
  });

  it('parses --log-level and --log-format, and refuses other values', () => {
    expect(parseArgs(['proxy', '-c', 's.json', '--http', '0', '--log-level', 'info', '--log-format', 'json'])).toEqual({
      kind: 'proxy',
      config: 's.json',
      serve: { kind: 'http', port: 0 },
      log: { level: 'info', format: 'json' },
    });
    expect(parseArgs(['proxy', '-c', 's.json', '--log-level=debug'])).toMatchObject({
      log: { level: 'debug', format: 'pretty' },
    });
    expect(parseArgs(['proxy', '-c', 's.json'])).not.toHaveProperty('log');
    expect(() => parseArgs(['proxy', '-c', 's.json', '--log-level', 'loud'])).toThrow(/--log-level wants one of/);
    expect(() => parseArgs(['proxy', '-c', 's.json', '--log-format', 'xml'])).toThrow(/json or pretty/);
  });

  it('serves /readyz and mcp_upstream_up from each upstream state, and logs each call naming its upstream', async () => {
    // The aggregate stands in as a server whose tools carry their upstream's prefix.
    const front = createServer({ name: 'front', version: '1.0.0' });
    front.tool({ name: 'files_read', description: 'r', handler: () => ({ content: [] }) });
    const files = { client: { state: 'operating' } as McpClient };
    const lines: string[] = [];
    const streams = { stdin: process.stdin, stdout: process.stdout, stderr: { write: (l: string) => lines.push(l) } };
    serving = await serveProxy(front as unknown as McpProxy, { kind: 'http', port: 0 }, streams, console, {
      upstreams: new Map([['files', files]]),
      log: { level: 'info', format: 'json' },
    });
    const url = new URL(serving.where);
    expect((await fetch(new URL('/readyz', url))).status).toBe(200);
    client = await connect(createStreamableHttpClientTransport({ url }), {
      name: 'spec',
      version: '1.0.0',
      protocolVersion: '2025-11-25',
    });
    await client.promises.callTool('files_read');
    const call = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => r.method === 'tools/call');
    expect(call).toMatchObject({ msg: 'call', tool: 'files_read', upstream: 'files', outcome: 'ok', level: 30 });

    (files.client as { state: string }).state = 'shutdown';
    const down = await fetch(new URL('/readyz', url));
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({
      checks: { 'upstream:files': { ready: false, detail: 'upstream files is disconnected' } },
    });
    expect(await (await fetch(new URL('/metrics', url))).text()).toContain('mcp_upstream_up{upstream="files"} 0\n');
  });
});
