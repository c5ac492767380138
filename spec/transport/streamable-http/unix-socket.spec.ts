import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { connect } from '../../../lib/client/client';
import { createServer } from '../../../lib/server/server';
import { textResult } from '../../../lib/server/results';
import { createStreamableHttpClientTransport } from '../../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';

// Streamable HTTP over a Unix socket: HTTP/1.1 for a local server, reached through the file system
// instead of a TCP port (the transports working group's recommendation for local servers).
function echoServer() {
  const server = createServer({ name: 'local', version: '1.0.0', logging: false });
  server.tool({
    name: 'echo',
    inputSchema: z.object({ text: z.string() }),
    handler: ({ text }) => textResult(`echo: ${text}`),
  });
  return server;
}

describe('Streamable HTTP over a Unix socket', () => {
  let dir: string;
  let socketPath: string;
  let running: RunningStreamableHttpServer | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxmcp-socket-'));
    socketPath = join(dir, 'mcp.sock');
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves on the socket and names it in an http+unix URL that the client transport takes', async () => {
    running = await startStreamableHttpServer({ server: echoServer(), socketPath });
    expect(running.url.href).toBe(`http+unix://${encodeURIComponent(socketPath)}/mcp`);
    expect([running.port, running.socketPath]).toEqual([0, socketPath]);
    const client = await connect(createStreamableHttpClientTransport({ url: running.url }), {
      name: 'c',
      version: '1',
    });
    const result = await client.promises.callTool('echo', { text: 'over the socket' });
    expect(result.content).toEqual([{ type: 'text', text: 'echo: over the socket' }]);
    client.close();
  });

  it('reaches the socket with node:http too (an agent given), and with socketPath beside an http: URL', async () => {
    running = await startStreamableHttpServer({ server: echoServer(), socketPath, path: '/tools' });
    const agent = new Agent({ keepAlive: true });
    const viaAgent = await connect(
      createStreamableHttpClientTransport({ url: 'http://localhost/tools', socketPath, agent }),
      { name: 'c', version: '1', protocolVersion: '2025-06-18' },
    );
    expect((await viaAgent.promises.callTool('echo', { text: 'a' })).content).toEqual([
      { type: 'text', text: 'echo: a' },
    ]);
    viaAgent.close();
    agent.destroy();
  });

  it('removes its socket file when it closes', async () => {
    running = await startStreamableHttpServer({ server: echoServer(), socketPath });
    expect(existsSync(socketPath)).toBe(true);
    await running.close();
    running = undefined;
    expect(existsSync(socketPath)).toBe(false);
  });

  it('takes over the socket file of a process that died, and refuses one a live server answers on', async () => {
    // A process that binds the socket and is killed at once leaves its file behind.
    const script = `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => process.kill(process.pid, 'SIGKILL'))`;
    spawnSync(process.execPath, ['-e', script]);
    expect(existsSync(socketPath)).toBe(true);
    running = await startStreamableHttpServer({ server: echoServer(), socketPath });
    await expect(startStreamableHttpServer({ server: echoServer(), socketPath })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
  });

  it('never removes a file that is not a socket', async () => {
    writeFileSync(socketPath, 'not a socket');
    await expect(startStreamableHttpServer({ server: echoServer(), socketPath })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
    expect(existsSync(socketPath)).toBe(true);
  });

  it('says what is wrong with a socket it cannot use', () => {
    expect(() =>
      createStreamableHttpClientTransport({ url: 'http://localhost/mcp', socketPath, fetch: globalThis.fetch }),
    ).toThrow('socketPath cannot be used with fetch: leave fetch out');
    expect(() => createStreamableHttpClientTransport({ url: 'http+unix:///mcp' })).toThrow(
      'names no socket: write http+unix://<percent-encoded path>/<path>',
    );
  });
});
