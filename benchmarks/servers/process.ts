/**
 * A bench server in a child process, as users deploy one: the script prints its endpoint's URL on
 * its first line of stdout, and ends when its stdin closes.
 */
import { spawn } from 'node:child_process';

/** A running server process: its URL, and how to end it. */
export interface ServerProcess {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts `node [nodeArgs] script ...args` and waits for the URL it prints. */
export async function startServerProcess(
  script: string,
  args: readonly string[],
  nodeArgs: readonly string[] = [],
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const at = out.indexOf('\n');
      if (at >= 0) resolve(out.slice(0, at).trim());
    });
    void exited.then(() => reject(new Error(`${script} exited before it printed its URL`)));
  });
  return {
    url,
    stop: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

/** For a server script: ends the process when the parent closes its stdin. */
export function endWithStdin(): void {
  process.stdin.on('end', () => process.exit(0)).resume();
}

/**
 * Every bench HTTP server keeps idle connections for a minute rather than Node's 5 s: with 1,000
 * sessions in flight a call can wait longer than 5 s, and a server closing a keep-alive connection
 * as the client reuses it fails the call (ECONNRESET). The same setting for every implementation.
 */
export function keepConnections(server: { keepAliveTimeout: number; headersTimeout: number }): void {
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 61_000;
}
