import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** The repository root: the examples run from here, as their comments say. */
export const ROOT = resolve(__dirname, '../..');

/** The built file of an example (npm test builds first), failing with a clear line when it is not there. */
export function built(example: string): string {
  const file = resolve(ROOT, 'dist/examples', example.replace(/\.ts$/, '.js'));
  if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
  return file;
}

/** A running program, with what it wrote so far. */
export interface Running {
  readonly child: ChildProcess;
  /** The first URL it printed. */
  readonly url: string;
  stdout(): string;
  stderr(): string;
}

const started = new Set<ChildProcess>();

/**
 * Starts `node <file> ...args` in the repository root and resolves with the first http URL it prints
 * (on stdout, or on stderr with `urlOn: 'stderr'`); rejects, with what it wrote, if it exits first.
 */
export async function startProgram(
  file: string,
  args: readonly string[] = [],
  options: { env?: NodeJS.ProcessEnv; urlOn?: 'stdout' | 'stderr'; urlPattern?: RegExp } = {},
): Promise<Running> {
  const child = spawn(process.execPath, [file, ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  started.add(child);
  child.once('exit', () => started.delete(child));
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const pattern = options.urlPattern ?? /(http:\/\/127\.0\.0\.1:\d+\/mcp)/;
  const url = await new Promise<string>((done, fail) => {
    const stream = options.urlOn === 'stderr' ? child.stderr! : child.stdout!;
    const look = () => {
      const match = pattern.exec(options.urlOn === 'stderr' ? err : out);
      if (match) {
        stream.off('data', look);
        done(match[1]!);
      }
    };
    stream.on('data', look);
    child.once('exit', (code) => fail(new Error(`${file} exited with ${code}:\n${out}\n${err}`)));
  });
  return { child, url, stdout: () => out, stderr: () => err };
}

/** Runs `node <file> ...args` to its end; resolves with its exit code and output. */
export async function runProgram(
  file: string,
  args: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [file, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  started.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((done) => child.once('close', (exitCode) => done(exitCode)));
  started.delete(child);
  return { code, stdout, stderr };
}

/** Stops a program with SIGTERM and waits for it to exit. */
export async function stopProgram(running: { readonly child: ChildProcess } | undefined): Promise<void> {
  const child = running?.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

/** Kills whatever a failed test left running (afterAll of every spec here). */
export function killLeftovers(): void {
  for (const child of started) child.kill('SIGKILL');
  started.clear();
}
