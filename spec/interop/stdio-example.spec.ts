import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import { createStdioClientTransport } from '../../lib/transport/stdio/stdio-client-transport';

// The built example server (npm test builds first).
const SERVER = resolve(__dirname, '../../dist/examples/conformance/everything-server.js');

describe('example server over stdio', () => {
  let client: McpClient;

  beforeAll(() => {
    if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run npm run build first`);
  });

  beforeEach(async () => {
    client = await connect(createStdioClientTransport({ command: process.execPath, args: [SERVER] }), {
      name: 'stdio-spec',
      version: '1.0.0',
    });
  });

  afterEach(async () => {
    const closed = firstValueFrom(client.connection.closed$);
    client.close();
    await closed;
  });

  it('negotiates the latest revision (modern 2026-07-28), pings, lists and calls tools', async () => {
    expect(client.revision).toBe('2026-07-28');
    expect(client.serverInfo).toMatchObject({ name: 'rxmcp-everything-server' });
    await client.promises.ping();
    const tools = await firstValueFrom(client.listTools());
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'countdown']));
    const result = await client.promises.callTool('add', { a: 2, b: 40 });
    expect(result).toEqual({ content: [{ type: 'text', text: '42' }] });
  });

  it('streams countdown progress before the result', async () => {
    const updates: number[] = [];
    const result = await client.promises.callTool(
      'countdown',
      { from: 3, intervalMs: 5 },
      { onProgress: (p) => updates.push(p.progress) },
    );
    expect(updates).toEqual([1, 2, 3]);
    expect(result).toEqual({ content: [{ type: 'text', text: 'Counted down from 3' }] });
  });

  it('round-trips a 3 MB argument', async () => {
    const text = 'é'.repeat(1_500_000);
    const result = await client.promises.callTool('echo', { text });
    expect((result.content as Array<{ text: string }>)[0]!.text).toBe(text);
  });
});

describe('example server over stdio, raw bytes', () => {
  it('answers garbage with -32700, survives, and exits when stdin closes', async () => {
    const child = spawn(process.execPath, [SERVER], { stdio: ['pipe', 'pipe', 'pipe'] });
    const lines: Array<Record<string, unknown>> = [];
    let buffer = '';
    child.stdout.setEncoding('utf8');
    const got = (n: number) =>
      new Promise<void>((done) => {
        const check = () => (lines.length >= n ? done() : child.stdout.once('data', check));
        check();
      });
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let at: number;
      while ((at = buffer.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(buffer.slice(0, at)) as Record<string, unknown>);
        buffer = buffer.slice(at + 1);
      }
    });
    child.stdin.write('this is not json\n');
    child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",');
    child.stdin.write('"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n');
    await got(2);
    expect(lines[0]).toMatchObject({ id: null, error: { code: -32700 } });
    expect(lines[1]).toMatchObject({ id: 1, result: { protocolVersion: '2025-06-18' } });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.stdin.end();
    expect(await exited).toBe(0);
  });
});
