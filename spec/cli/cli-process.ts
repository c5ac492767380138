import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The built command (run `npm run build` first). */
export const CLI = resolve(__dirname, '../../dist/lib/cli/rxmcp.js');
/** rxmcp's example server, built. */
export const EXAMPLE_SERVER = resolve(__dirname, '../../dist/examples/conformance/everything-server.js');
/** The official reference server; its first argument picks the transport. */
export const REFERENCE_SERVER = resolve(
  __dirname,
  '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

export function assertBuilt(): void {
  for (const file of [CLI, EXAMPLE_SERVER]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
  }
}

/** A running `rxmcp` process, with what it wrote so far. */
export interface CliRun {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** Resolves with the first match of `pattern` in stderr; rejects if the process exits first. */
  stderrMatch(pattern: RegExp): Promise<RegExpExecArray>;
  /** The same for stdout. */
  stdoutMatch(pattern: RegExp): Promise<RegExpExecArray>;
  /** Stops the process (if it still runs) and waits for it. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const started = new Set<CliRun>();

/** Stops every process `runCli` started that still runs: for `afterEach`, so a failed test leaves none behind. */
export async function stopAll(): Promise<void> {
  await Promise.all([...started].map((run) => run.stop('SIGKILL')));
  started.clear();
}

/** Spawns `node rxmcp.js ...args` with pipes on all three streams (stderr is no terminal). */
export function runCli(args: readonly string[], env: Record<string, string> = {}): CliRun {
  const run = spawnCli(args, env);
  started.add(run);
  void run.exited.then(() => started.delete(run));
  return run;
}

function spawnCli(args: readonly string[], env: Record<string, string>): CliRun {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    stderrMatch: (pattern) => firstMatch(child.stderr, () => stderr, pattern, exited),
    stdoutMatch: (pattern) => firstMatch(child.stdout, () => stdout, pattern, exited),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** The first match of `pattern` in what `stream` has written (`text()`), as soon as there is one. */
function firstMatch(
  stream: NodeJS.ReadableStream,
  text: () => string,
  pattern: RegExp,
  exited: Promise<unknown>,
): Promise<RegExpExecArray> {
  return new Promise((done, fail) => {
    const check = () => {
      const match = pattern.exec(text());
      if (!match) return false;
      stream.off('data', check);
      done(match);
      return true;
    };
    if (check()) return;
    stream.on('data', check);
    void exited.then(() => {
      if (!check()) fail(new Error(`rxmcp exited before writing ${pattern}:\n${text()}`));
    });
  });
}

/** A temporary directory with a servers file in it; `remove()` deletes both. */
export function writeServers(config: unknown): { readonly file: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'rxmcp-cli-'));
  const file = join(dir, 'servers.json');
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Two working stdio upstreams (rxmcp's example server and the reference server) and one that cannot start. */
export const THREE_UPSTREAMS = {
  mcpServers: {
    files: { command: process.execPath, args: [EXAMPLE_SERVER], env: { LOG_LEVEL: 'error' } },
    everything: { command: process.execPath, args: [REFERENCE_SERVER, 'stdio'] },
    search: { command: 'rxmcp-spec-nonexistent-command', args: [] },
  },
};

/** The text of a tool result's content blocks. */
export const textOf = (result: object): string =>
  (((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>)
    .map((block) => block.text ?? '')
    .join('');
