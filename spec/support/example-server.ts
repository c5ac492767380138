import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** rxmcp's example server, built (npm test builds first). */
export const EXAMPLE_SERVER = resolve(__dirname, '../../dist/examples/conformance/everything-server.js');

/** The example server over Streamable HTTP on a free port: the process and the endpoint it printed. */
export interface RunningExample {
  readonly child: ChildProcess;
  readonly url: string;
}

/**
 * Starts the example server with `--http 0` and the extra `args`; resolves once it prints its
 * endpoint, rejects if it exits first. The caller stops it (`stopExample`).
 */
export async function startExample(args: readonly string[] = []): Promise<RunningExample> {
  if (!existsSync(EXAMPLE_SERVER)) throw new Error(`${EXAMPLE_SERVER} is missing: run npm run build first`);
  const child = spawn(process.execPath, [EXAMPLE_SERVER, '--http', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    // EXAMPLE_LOG_LEVEL=info shows what the processes did (a cluster's take-overs), on stderr.
    env: { ...process.env, LOG_LEVEL: process.env.EXAMPLE_LOG_LEVEL ?? 'error' },
  });
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (match) done(match[1]!);
    });
    child.once('exit', (code) => fail(new Error(`the example server exited with ${code}: ${out}`)));
  });
  return { child, url };
}

/** Stops a server `startExample` started, and waits for it to exit. */
export async function stopExample(
  running: RunningExample | undefined,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  const child = running?.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill(signal);
  await exited;
}
