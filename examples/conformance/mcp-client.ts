/**
 * A small command-line MCP client: connects to a server, lists its tools, and calls one, showing
 * its progress as a bar on a terminal (one line per update otherwise).
 *
 *   node dist/examples/conformance/mcp-client.js http://127.0.0.1:3000/mcp
 *   node dist/examples/conformance/mcp-client.js --call countdown --args '{"from":5}' http://127.0.0.1:3000/mcp
 *   node dist/examples/conformance/mcp-client.js --call add --args '{"a":2,"b":40}' node dist/examples/conformance/everything-server.js
 *
 * A URL (http: or https:) is reached over Streamable HTTP; anything else is the command line of a
 * server to launch and speak to over stdio, with everything after the command passed to it (so
 * options go before the command). Errors are one line on stderr; the exit code is 1 when the
 * connection or the call fails (a tool's own error, `isError`, included), 2 for a usage error (an
 * unknown option is one line pointing to `--help`). Ctrl-C cancels a call in flight. `--help`
 * prints the options, examples and environment.
 */
import { lastValueFrom, tap } from 'rxjs';
import { connect, createStdioClientTransport, createStreamableHttpClientTransport, toolResult } from '../../lib/index';
import type { CallToolResult, McpClient, Tool, ToolProgressEvent, Transport } from '../../lib/index';

const USAGE = `usage: mcp-client [--call <tool> [--args '<json object>']] <server URL | command [args...]>`;

/** What `--help` prints. */
export const HELP = `${USAGE}

Connects to an MCP server, lists its tools and, with --call, calls one, showing its progress (a bar
on a terminal, a line per update otherwise). A URL (http: or https:) is reached over Streamable
HTTP; anything else is the command line of a server to start and speak to over stdio: every word
after the command is passed to it, so options go before the command.

Options:
  --call <tool>               the tool to call
  --args '<json object>'      its arguments (default {})
  -h, --help                  show this help

Examples:
  node dist/examples/conformance/mcp-client.js http://127.0.0.1:3000/mcp
  node dist/examples/conformance/mcp-client.js --call countdown --args '{"from":5}' http://127.0.0.1:3000/mcp
  node dist/examples/conformance/mcp-client.js --call add --args '{"a":2,"b":40}' node dist/examples/conformance/everything-server.js

Environment: none read. A server started over stdio gets only PATH, HOME, USER, LOGNAME, SHELL and
TERM from it; its stderr is shown here.

Exit codes: 0 done, 1 the connection or the call failed (a tool's isError included), 2 a bad
command line. Ctrl-C cancels a call in flight.`;

/** What the command line asks for. */
export interface ClientCommand {
  /** The server's URL, or the command (and its arguments) that starts it. */
  readonly target: { readonly url: string } | { readonly command: string; readonly args: readonly string[] };
  readonly call?: { readonly name: string; readonly args: Record<string, unknown> };
}

/** A mistake on the command line: reported with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** An option the client does not know: reported in one line that points to `--help`, exit code 2. */
export class UnknownOptionError extends UsageError {
  constructor(readonly option: string) {
    super(`unknown option ${option} (see mcp-client --help)`);
  }
}

/** Whether the command line asks for help: `-h` or `--help` among the client's own words (not the server's). */
export function asksForHelp(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '-h' || word === '--help') return true;
    if (word === '--call' || word === '--args') i++;
    else if (!word.startsWith('-') && !isUrl(word)) return false;
  }
  return false;
}

const isUrl = (value: string) => /^https?:\/\//i.test(value);

function parseArgsOption(text: string | undefined): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? '');
  } catch {
    throw new UsageError(`--args needs a JSON object, got ${text === undefined ? 'nothing' : `'${text}'`}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`--args needs a JSON object, got ${text}`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * Reads the command line (without `node` and the script). Options may come before the target, and
 * after a URL; after a command, every word belongs to the command. Throws UsageError.
 */
export function parseCommandLine(argv: readonly string[]): ClientCommand {
  let name: string | undefined;
  let args: Record<string, unknown> | undefined;
  let url: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--call') {
      name = argv[++i];
      if (name === undefined) throw new UsageError('--call needs the name of a tool');
    } else if (word === '--args') args = parseArgsOption(argv[++i]);
    else if (word.startsWith('-')) throw new UnknownOptionError(word);
    else if (url !== undefined) throw new UsageError(`unexpected ${word} after the URL`);
    else if (isUrl(word)) url = word;
    else return build({ command: word, args: argv.slice(i + 1) }, name, args);
  }
  if (url === undefined) throw new UsageError('give the server: a URL, or the command that starts it');
  return build({ url }, name, args);
}

function build(target: ClientCommand['target'], name: string | undefined, args: Record<string, unknown> | undefined) {
  if (name === undefined && args !== undefined) throw new UsageError('--args goes with --call');
  return name === undefined ? { target } : { target, call: { name, args: args ?? {} } };
}

/**
 * One progress update as text: on a terminal, a bar to redraw in place (`columns` wide at most);
 * otherwise a plain line.
 */
export function renderProgress(event: ToolProgressEvent, tty: boolean, columns = 80): string {
  const { progress, total, message } = event;
  const count = total === undefined ? `${progress}` : `${progress}/${total}`;
  const note = message === undefined ? '' : ` ${message}`;
  if (!tty) return `progress ${count}${note}\n`;
  if (total === undefined || total <= 0) return `\r\x1b[K${count}${note}`.slice(0, columns + 4);
  const fraction = Math.min(Math.max(progress / total, 0), 1);
  const width = Math.max(10, Math.min(40, columns - count.length - note.length - 10));
  const filled = Math.round(fraction * width);
  const percent = `${Math.round(fraction * 100)}%`.padStart(4);
  const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent} ${count}${note}`;
  return `\r\x1b[K${line.slice(0, columns - 1)}`;
}

/** A tool's result as text: text content as is, other content and structured content as JSON. */
export function renderResult(result: CallToolResult): string {
  const lines = result.content.map((block) =>
    block.type === 'text' ? block.text : `[${block.type}] ${JSON.stringify(block).slice(0, 200)}`,
  );
  if (result.structuredContent !== undefined) lines.push(JSON.stringify(result.structuredContent));
  return lines.join('\n') + '\n';
}

/** The tools, one line each: the name, then the first line of the description. */
export function renderTools(tools: readonly Tool[]): string {
  const width = Math.max(0, ...tools.map((tool) => tool.name.length));
  const rows = tools.map((tool) => `  ${tool.name.padEnd(width)}  ${tool.description?.split('\n')[0] ?? ''}`.trimEnd());
  return `${tools.length} tool${tools.length === 1 ? '' : 's'}:\n${rows.join('\n')}\n`;
}

function openTransport(target: ClientCommand['target']): Transport {
  if ('url' in target) return createStreamableHttpClientTransport({ url: target.url });
  // The server's own diagnostics go to this process's stderr.
  return createStdioClientTransport({ command: target.command, args: target.args, stderr: 'inherit' });
}

/** Where the client writes (stdout, and whether it is a terminal), and what stops a call. */
export interface Output {
  readonly write: (text: string) => void;
  readonly tty: boolean;
  readonly columns?: number;
  /** Aborting it cancels the call in flight (the server hears `notifications/cancelled`). */
  readonly signal?: AbortSignal;
}

async function callWithProgress(client: McpClient, call: NonNullable<ClientCommand['call']>, out: Output) {
  let drawn = false;
  const options = out.signal === undefined ? {} : { signal: out.signal };
  const result = await lastValueFrom(
    client.callTool(call.name, call.args, options).pipe(
      tap((event) => {
        if (event.type !== 'progress') return;
        out.write(renderProgress(event, out.tty, out.columns));
        drawn = out.tty;
      }),
      toolResult(),
    ),
  );
  if (drawn) out.write('\n');
  return result;
}

/** A tool answered with `isError`: its result was shown, and the exit code is 1. */
export class ToolFailedError extends Error {
  override readonly name = 'ToolFailedError';
}

/**
 * Connects, lists the tools and makes the call asked for, writing to `out`; closes the connection
 * whatever happens. Rejects when the connection or the call fails, or the tool answers `isError`.
 */
export async function runClient(command: ClientCommand, out: Output): Promise<void> {
  const client = await connect(openTransport(command.target), { name: 'rxmcp-mcp-client', version: '0.1.0' });
  try {
    const { name, version } = client.serverInfo;
    out.write(`connected to ${name} ${version} (${client.revision})\n`);
    const tools = await client.promises.listTools();
    out.write(renderTools(tools));
    if (command.call === undefined) return;
    if (!tools.some((tool) => tool.name === command.call!.name)) {
      throw new Error(`the server has no tool named ${command.call.name}`);
    }
    out.write(`calling ${command.call.name} ${JSON.stringify(command.call.args)}\n`);
    const result = await callWithProgress(client, command.call, out);
    out.write(renderResult(result));
    if (result.isError === true) throw new ToolFailedError(`${command.call.name} answered with an error`);
  } finally {
    client.close('done');
    await lastValueFrom(client.closed$, { defaultValue: undefined });
  }
}

/** The error as one line: the message, and the cause's when there is one. */
export function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
  return (message.includes(cause) ? message : `${message}: ${cause}`).replace(/\s*\n\s*/g, ' ');
}

if (require.main === module) {
  const fail = (error: unknown) => {
    process.stderr.write(`mcp-client: ${oneLine(error)}\n`);
    if (error instanceof UsageError && !(error instanceof UnknownOptionError)) process.stderr.write(`${USAGE}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  };
  // Ctrl-C cancels the call in flight; the connection then closes as after any failure.
  const interrupt = new AbortController();
  process.once('SIGINT', () => interrupt.abort(new Error('interrupted')));
  const out: Output = {
    write: (text) => void process.stdout.write(text),
    tty: process.stdout.isTTY === true,
    // A terminal whose size is unknown reports 0 columns.
    ...(process.stdout.columns > 0 ? { columns: process.stdout.columns } : {}),
    signal: interrupt.signal,
  };
  const argv = process.argv.slice(2);
  if (asksForHelp(argv)) process.stdout.write(`${HELP}\n`);
  else
    void Promise.resolve()
      .then(() => runClient(parseCommandLine(argv), out))
      .then(() => (process.exitCode = 0), fail);
}
