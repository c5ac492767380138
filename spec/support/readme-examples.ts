import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import ts from 'typescript';

/**
 * The TypeScript examples of a Markdown file, and a runner that runs them as programs.
 *
 * A ```ts block is, by default, a whole program that runs on its own and exits 0 with nothing on
 * stderr. An HTML comment on the line before a block (blank lines between are allowed) says
 * otherwise:
 *
 *   <!-- example: server -->          serves until stopped; run with PORT set to a free port, it
 *                                      must listen on 127.0.0.1 at that port and write no stderr
 *   <!-- example: client -->          runs with the URL of the nearest server block above
 *                                      (http://127.0.0.1:<port>/mcp) as its first argument, and
 *                                      must exit 0 with nothing on stderr
 *   <!-- example: fragment <name> --> only type-checked; the spec names each fragment and why
 *   <!-- example: output -->          before a fenced block after a program: that program's
 *                                      exact standard output
 *
 * Any other `example:` comment is an error, so a misspelt marker never turns a check off.
 */
export type ExampleRole = 'program' | 'server' | 'client' | 'fragment';

export interface Example {
  /** `readme-example-<n>`: the file name the example is checked and run under. */
  readonly name: string;
  /** The line of the opening fence, for messages. */
  readonly line: number;
  readonly role: ExampleRole;
  readonly code: string;
  /** The fragment's name (role `fragment`). */
  readonly fragment?: string;
  /** The expected standard output (an `output` block after it). */
  readonly output?: string;
}

type Marker = { readonly role: ExampleRole | 'output'; readonly fragment?: string; readonly line: number };

function parseMarker(text: string, line: number): Marker {
  const [word, ...rest] = text.split(/\s+/);
  if (word === 'fragment' && rest.length === 1) return { role: 'fragment', fragment: rest[0]!, line };
  if ((word === 'server' || word === 'client' || word === 'output') && rest.length === 0) return { role: word, line };
  throw new Error(`line ${line}: unknown example marker "${text}"`);
}

/** The ```ts blocks of a Markdown text, with their markers. Throws on a marker it does not know. */
export function parseExamples(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const examples: Array<Example & { output?: string }> = [];
  let marker: Marker | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const comment = /^<!--\s*example:\s*(.*?)\s*-->\s*$/.exec(text);
    const fence = /^```(\S*)\s*$/.exec(text);
    if (comment) {
      if (marker) throw new Error(`line ${marker.line}: example marker not followed by a code block`);
      marker = parseMarker(comment[1]!, i + 1);
    } else if (fence) {
      const start = i;
      let end = i + 1;
      while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
      const code = lines.slice(start + 1, end).join('\n') + '\n';
      i = end;
      if (marker?.role === 'output') {
        const last = examples.at(-1);
        if (!last || last.role === 'fragment') throw new Error(`line ${marker.line}: output of no program`);
        examples[examples.length - 1] = { ...last, output: code };
      } else if (fence[1] === 'ts') {
        const role = marker?.role ?? 'program';
        examples.push({
          name: `readme-example-${examples.length + 1}`,
          line: start + 1,
          role: role as ExampleRole,
          code,
          ...(marker?.fragment === undefined ? {} : { fragment: marker.fragment }),
        });
      } else if (marker) {
        throw new Error(`line ${marker.line}: example marker before a block that is not TypeScript`);
      }
      marker = undefined;
    } else if (marker && text.trim() !== '') {
      throw new Error(`line ${marker.line}: example marker not followed by a code block`);
    }
  }
  if (marker) throw new Error(`line ${marker.line}: example marker not followed by a code block`);
  return examples;
}

export interface RunOptions {
  /** Where the compiled programs go: inside the package, so `import 'rxmcp'` finds the built package. */
  readonly dir: string;
  /** How long a program may run, and a server may take to listen. */
  readonly timeoutMs?: number;
  /** Every child started, so the caller can kill what is left if a run is cut short. */
  readonly children?: Set<ChildProcess>;
}

/** A program started by {@link startProgram}: the process, its exit code, and what it wrote so far. */
export interface Run {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  readonly output: () => { stdout: string; stderr: string };
}

/** Runs `node file args` with `env` added, collecting its output; `children` holds it until it exits. */
export function startProgram(
  file: string,
  args: readonly string[],
  env: Record<string, string> = {},
  children?: Set<ChildProcess>,
): Run {
  const child = spawn(process.execPath, [file, ...args], { env: { ...process.env, ...env }, stdio: 'pipe' });
  children?.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) =>
    child.on('close', (code) => {
      children?.delete(child);
      done(code);
    }),
  );
  return { child, exited, output: () => ({ stdout, stderr }) };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
}

const accepts = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect(port, '127.0.0.1');
    const settle = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.once('connect', () => settle(true));
    socket.once('error', () => settle(false));
    socket.setTimeout(500, () => settle(false));
  });

/** Resolves `listening` once the port accepts connections, `exited` if the process ends first. */
async function listening(run: Run, port: number, timeoutMs: number): Promise<'listening' | 'exited' | 'timeout'> {
  let ended = false;
  void run.exited.then(() => (ended = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (ended) return 'exited';
    if (await accepts(port)) return 'listening';
    await new Promise((done) => setTimeout(done, 50));
  }
  return 'timeout';
}

async function finish(run: Run, timeoutMs: number): Promise<number | null | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((done) => (timer = setTimeout(() => done('timeout'), timeoutMs)));
  const result = await Promise.race([run.exited, timeout]);
  clearTimeout(timer);
  if (result === 'timeout') {
    run.child.kill('SIGKILL');
    await run.exited;
  }
  return result;
}

const where = (example: Example) => `line ${example.line} (${example.role})`;

function complaints(example: Example, code: number | null | 'timeout', stdout: string, stderr: string): string[] {
  const found: string[] = [];
  if (code === 'timeout') found.push(`${where(example)}: still running at the timeout`);
  else if (code !== 0) found.push(`${where(example)}: exit code ${code}`);
  if (stderr !== '') found.push(`${where(example)}: stderr: ${stderr.trim()}`);
  if (example.output !== undefined && stdout !== example.output) {
    found.push(`${where(example)}: printed\n${stdout}instead of\n${example.output}`);
  }
  return found;
}

/** Compiles an example to an ES module file in `dir`. */
function compile(example: Example, dir: string): string {
  const { outputText } = ts.transpileModule(example.code, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022 },
    fileName: `${example.name}.ts`,
  });
  const file = join(dir, `${example.name}.mjs`);
  writeFileSync(file, outputText);
  return file;
}

/**
 * Runs every example but the fragments, in order, and returns what went wrong (one entry per
 * problem, empty when all is well). A server runs until the next server block or the end.
 */
export async function runExamples(examples: readonly Example[], options: RunOptions): Promise<string[]> {
  const { dir, timeoutMs = 10_000, children } = options;
  const problems: string[] = [];
  let server: { example: Example; run: Run; url: string } | undefined;
  const stopServer = async () => {
    if (!server) return;
    const { example, run } = server;
    server = undefined;
    run.child.kill('SIGTERM');
    await finish(run, timeoutMs);
    const { stderr } = run.output();
    if (stderr !== '') problems.push(`${where(example)}: stderr: ${stderr.trim()}`);
  };
  try {
    for (const example of examples) {
      if (example.role === 'fragment') continue;
      const file = compile(example, dir);
      if (example.role === 'server') {
        await stopServer();
        const port = await freePort();
        const run = startProgram(file, [], { PORT: String(port) }, children);
        const state = await listening(run, port, timeoutMs);
        if (state === 'listening') server = { example, run, url: `http://127.0.0.1:${port}/mcp` };
        else {
          if (state === 'timeout') run.child.kill('SIGKILL');
          const code = state === 'timeout' ? 'timeout' : await run.exited;
          const { stderr } = run.output();
          problems.push(
            `${where(example)}: did not listen on PORT (${code === 'timeout' ? 'timeout' : `exit code ${code}`})`,
          );
          if (stderr !== '') problems.push(`${where(example)}: stderr: ${stderr.trim()}`);
        }
        continue;
      }
      if (example.role === 'client' && !server) {
        problems.push(`${where(example)}: no server block runs above it`);
        continue;
      }
      const run = startProgram(file, example.role === 'client' ? [server!.url] : [], {}, children);
      const code = await finish(run, timeoutMs);
      const { stdout, stderr } = run.output();
      problems.push(...complaints(example, code, stdout, stderr));
    }
  } finally {
    await stopServer();
  }
  return problems;
}
