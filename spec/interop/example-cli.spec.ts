import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';

// The example server's command line (`npm start` runs it with `--http`): the port comes from
// `--port`, `--http <port>` or PORT, and a port that cannot be bound is explained in one line.
const SERVER = resolve(__dirname, '../../dist/examples/conformance/everything-server.js');

function run(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [SERVER, ...args], { env: { ...process.env, ...env }, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const listening = new Promise<string>((done, fail) => {
    child.stdout.on('data', () => {
      const url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stdout)?.[0];
      if (url) done(url);
    });
    void exited.then(() => fail(new Error(`exited: ${stderr}`)));
  });
  // A run that is expected to fail never waits for `listening`.
  listening.catch(() => undefined);
  return { child, exited, listening, output: () => ({ stdout, stderr }) };
}

describe('the example server command line', () => {
  it('listens on the port PORT names when --http gives none', async () => {
    const server = run(['--http'], { PORT: '0' });
    try {
      expect(await server.listening).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('explains a port in use in one line, and exits 1', async () => {
    const holder = createServer();
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
    const port = (holder.address() as AddressInfo).port;
    try {
      const server = run(['--port', String(port)]);
      expect(await server.exited).toBe(1);
      const lines = server.output().stderr.trim().split('\n');
      expect(lines).toEqual([
        `rxmcp everything-server: port ${port} is already in use; choose another with --port <port> or PORT=<port>`,
      ]);
    } finally {
      await new Promise((done) => holder.close(done));
    }
  });
});
