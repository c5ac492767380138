import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

/** A `node -e` script serving on a port, which says `serving at <url>` on stdout once it listens. */
export interface ScriptProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: URL;
}

/** Starts `script` with `args`; resolves with its URL, or fails with what it wrote to stderr if it exits first. */
export function startScriptProcess(script: string, args: readonly string[]): Promise<ScriptProcess> {
  const child = spawn(process.execPath, ['-e', script, ...args], { stdio: 'pipe' });
  return new Promise((done, fail) => {
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /serving at (\S+)\n/.exec(out);
      if (match) done({ child, url: new URL(match[1]!) });
    });
    child.once('exit', (code) => fail(new Error(`a script process exited with ${code}: ${err}`)));
  });
}

/** Kills the process (SIGKILL) unless it has exited, and waits for its exit. */
export async function stopScriptProcess(running: ScriptProcess): Promise<void> {
  const { child } = running;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGKILL');
  await exited;
}
