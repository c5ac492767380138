/**
 * The `rxmcp` command's arguments: which command, with which options. Pure: nothing here reads a
 * file or the environment, so every rule is tested on its own.
 */
import { UsageError } from './errors';
import type { HelpTopic } from './help';

export { UsageError } from './errors';

/** How `rxmcp proxy` serves the aggregate: on this process's stdin and stdout, or over HTTP. */
export type ServeMode =
  | { readonly kind: 'stdio' }
  | {
      readonly kind: 'http';
      readonly port: number;
      /** The address to listen on (`--host`). Default 127.0.0.1. */
      readonly host?: string;
    };

/** The default of `--host`: this machine only. */
export const DEFAULT_HOST = '127.0.0.1';

/** Where `rxmcp proxy` logs its records (a line per call at info): the least level, and how lines look. */
export interface LogSettings {
  readonly level: LogLevelName;
  readonly format: 'json' | 'pretty';
}
export type LogLevelName = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'silent';
const LOG_LEVEL_NAMES: readonly LogLevelName[] = ['trace', 'debug', 'info', 'warn', 'error', 'silent'];

/** A parsed command line. */
export type CliCommand =
  | { readonly kind: 'help'; readonly topic: HelpTopic }
  | { readonly kind: 'version' }
  | { readonly kind: 'completion'; readonly shell: CompletionShell }
  | {
      readonly kind: 'proxy';
      /** The servers file; '' with `printSchema`. */
      readonly config: string;
      readonly serve: ServeMode;
      readonly log?: LogSettings;
      /** `--watch`: read the servers file again whenever it changes (it is on SIGHUP anyway). */
      readonly watch?: boolean;
      /** `--print-schema`: print the servers file's JSON Schema and exit. */
      readonly printSchema?: boolean;
    }
  | {
      readonly kind: 'connect';
      readonly url: URL;
      readonly headers: Readonly<Record<string, string>>;
      /** The loopback port of the OAuth redirect; 0 picks a free one. */
      readonly callbackPort: number;
    }
  | {
      readonly kind: 'bench';
      /** Each target as written: `[name=]<command line or URL>`. */
      readonly targets: readonly string[];
      /** The options as given (each name's values in order), checked by the command (bench-command.ts). */
      readonly options: Readonly<Record<string, readonly string[]>>;
    };

export { USAGE } from './help';
export type { HelpTopic } from './help';

/** The shells `rxmcp completion` writes a script for. */
export type CompletionShell = 'bash' | 'zsh';
export const COMPLETION_SHELLS: readonly CompletionShell[] = ['bash', 'zsh'];

/** One option of a command: whether it takes a value (and what kind), its one-letter alias, what it does. */
export interface Flag {
  readonly value: boolean;
  readonly alias?: string;
  /** What the value is, for completion: a file name, or anything else (nothing to offer). */
  readonly takes?: 'file' | 'port' | 'url' | 'header' | 'host' | 'number';
  readonly about: string;
}
export type Flags = Readonly<Record<string, Flag>>;

const COMMON: Flags = {
  help: { value: false, alias: 'h', about: 'show help' },
  version: { value: false, alias: 'v', about: 'show the version' },
};
const PROXY_FLAGS: Flags = {
  ...COMMON,
  config: { value: true, alias: 'c', takes: 'file', about: 'the servers file' },
  http: { value: true, takes: 'port', about: 'serve Streamable HTTP on this port (of --host)' },
  host: { value: true, takes: 'host', about: 'the address --http listens on (default 127.0.0.1)' },
  stdio: { value: false, about: 'serve on stdin and stdout' },
  watch: { value: false, about: 'read the servers file again when it changes (SIGHUP does too)' },
  'print-schema': { value: false, about: "print the servers file's JSON Schema" },
  'log-level': { value: true, about: 'log records of this level and above on stderr (info: a line per call)' },
  'log-format': { value: true, about: 'the log lines: json or pretty' },
};
const CONNECT_FLAGS: Flags = {
  ...COMMON,
  header: { value: true, alias: 'H', takes: 'header', about: 'a header for every request' },
  'callback-port': { value: true, takes: 'port', about: "the OAuth redirect's loopback port" },
};
const BENCH_FLAGS: Flags = {
  ...COMMON,
  tool: { value: true, alias: 't', about: 'call this tool (default: ping)' },
  args: { value: true, about: "the tool's arguments, a JSON object" },
  mix: { value: true, takes: 'file', about: 'a weights file: a mix of calls, lists, reads and prompts' },
  concurrency: { value: true, alias: 'c', takes: 'number', about: 'calls in flight (closed loop; default 1)' },
  rate: { value: true, alias: 'r', takes: 'number', about: 'calls started per second (open loop)' },
  sweep: { value: true, about: 'closed loops at each of these concurrencies (1,2,4,...): find the knee' },
  sessions: { value: true, takes: 'number', about: 'connections per target, calls going to each in turn' },
  pid: { value: true, takes: 'number', about: "a URL target's local server process: its CPU and memory are read" },
  churn: { value: false, about: 'each call opens a connection, makes one call and closes it' },
  duration: { value: true, alias: 'd', about: 'the steady phase of each repetition (5s, 500ms)' },
  reps: { value: true, takes: 'number', about: 'repetitions per target, interleaved (default 3)' },
  cold: { value: true, takes: 'number', about: "calls of each fresh connection's cold phase (default 100)" },
  'warmup-max': { value: true, about: 'the longest a warm-up lasts before it is reported unsettled (15s)' },
  timeout: { value: true, about: 'a call not answered in this long fails as timeout (10s)' },
  json: { value: true, takes: 'file', about: 'write the report as JSON to this file (- for stdout)' },
  html: { value: true, takes: 'file', about: 'write a self-contained HTML report to this file' },
  compare: { value: true, takes: 'file', about: 'fail (exit 1) where a figure is worse than this JSON report' },
  header: { value: true, alias: 'H', takes: 'header', about: 'a header for every HTTP request' },
  'callback-port': { value: true, takes: 'port', about: "the OAuth redirect's loopback port" },
};
const COMPLETION_FLAGS: Flags = COMMON;

/** Each command: what it does (one line) and its options; completion scripts are made from this. */
export const COMMAND_TABLE: Readonly<Record<Exclude<HelpTopic, 'rxmcp'>, { about: string; flags: Flags }>> = {
  proxy: { about: 'serve the MCP servers of a config file as one server', flags: PROXY_FLAGS },
  connect: { about: 'bridge stdio to a remote Streamable HTTP MCP server', flags: CONNECT_FLAGS },
  bench: { about: 'measure MCP servers side by side: latency, throughput, cost', flags: BENCH_FLAGS },
  completion: { about: 'print a shell completion script', flags: COMPLETION_FLAGS },
};

/** The edit distance of two short words (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/** The known word nearest `written` when it is a likely typo of it (` (did you mean --config?)`), else ''. */
export function didYouMean(written: string, known: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(written, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  const allowed = Math.max(1, Math.floor(written.length / 4));
  return best !== undefined && bestDistance <= Math.min(2, allowed) ? ` (did you mean ${best}?)` : '';
}

/** What a command line holds once its options are sorted out. */
interface Scanned {
  readonly options: Map<string, string[]>;
  readonly positionals: string[];
}

/** Splits `argv` into known options (with their values, in order) and positionals. */
function scan(command: string, argv: readonly string[], flags: Flags): Scanned {
  const options = new Map<string, string[]>();
  const positionals: string[] = [];
  const byAlias = new Map(Object.entries(flags).flatMap(([name, flag]) => (flag.alias ? [[flag.alias, name]] : [])));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const [written, inline] = splitInline(arg);
    const name = written.startsWith('--') ? written.slice(2) : byAlias.get(written.slice(1));
    const flag = name === undefined ? undefined : flags[name];
    if (name === undefined || flag === undefined) {
      const known = Object.keys(flags).map((known) => `--${known}`);
      throw new UsageError(`rxmcp ${command}: unknown option ${written}${didYouMean(written, known)}`, command);
    }
    let value = 'true';
    if (flag.value) {
      value = inline ?? argv[++i] ?? '';
      if (inline === undefined && i >= argv.length)
        throw new UsageError(`rxmcp ${command}: ${written} needs a value`, command);
    } else if (inline !== undefined) throw new UsageError(`rxmcp ${command}: ${written} takes no value`, command);
    options.set(name, [...(options.get(name) ?? []), value]);
  }
  return { options, positionals };
}

/** `--name=value` into its parts; a short option never carries an inline value. */
function splitInline(arg: string): [string, string | undefined] {
  const at = arg.indexOf('=');
  return arg.startsWith('--') && at > 0 ? [arg.slice(0, at), arg.slice(at + 1)] : [arg, undefined];
}

/** The one value of an option given at most once. */
function single(command: string, scanned: Scanned, name: string): string | undefined {
  const values = scanned.options.get(name);
  if (values && values.length > 1) throw new UsageError(`rxmcp ${command}: --${name} is given more than once`, command);
  return values?.[0];
}

/** A TCP port: an integer from 0 to 65535. */
export function parsePort(command: string, option: string, text: string): number {
  const port = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(port) || port > 65535) {
    throw new UsageError(`rxmcp ${command}: ${option} wants a port from 0 to 65535, not "${text}"`, command);
  }
  return port;
}

function parseProxy(argv: readonly string[]): CliCommand {
  const scanned = scan('proxy', argv, PROXY_FLAGS);
  if (scanned.positionals.length > 0)
    throw new UsageError(`rxmcp proxy: unexpected argument "${scanned.positionals[0]}"`, 'proxy');
  const config = single('proxy', scanned, 'config');
  const http = single('proxy', scanned, 'http');
  const host = single('proxy', scanned, 'host');
  if (scanned.options.has('print-schema'))
    return { kind: 'proxy', config: config ?? '', serve: { kind: 'stdio' }, printSchema: true };
  if (config === undefined || config === '')
    throw new UsageError('rxmcp proxy: --config <servers.json> is required', 'proxy');
  if (http !== undefined && scanned.options.has('stdio')) {
    throw new UsageError('rxmcp proxy: --http and --stdio are exclusive: pick one', 'proxy');
  }
  if (host !== undefined && http === undefined)
    throw new UsageError('rxmcp proxy: --host is where --http listens: give --http <port> too', 'proxy');
  if (host === '') throw new UsageError('rxmcp proxy: --host wants an address (127.0.0.1, ::1, 0.0.0.0...)', 'proxy');
  const serve: ServeMode =
    http === undefined
      ? { kind: 'stdio' }
      : { kind: 'http', port: parsePort('proxy', '--http', http), ...(host !== undefined ? { host } : {}) };
  const log = logSettings(scanned);
  const watch = scanned.options.has('watch');
  return { kind: 'proxy', config, serve, ...(log ? { log } : {}), ...(watch ? { watch } : {}) };
}

/** `--log-level` and `--log-format`, when either is given (the other defaults to info, pretty). */
function logSettings(scanned: Scanned): LogSettings | undefined {
  const level = single('proxy', scanned, 'log-level');
  const format = single('proxy', scanned, 'log-format');
  if (level === undefined && format === undefined) return undefined;
  if (level !== undefined && !(LOG_LEVEL_NAMES as readonly string[]).includes(level))
    throw new UsageError(
      `rxmcp proxy: --log-level wants one of ${LOG_LEVEL_NAMES.join(', ')}, not "${level}"`,
      'proxy',
    );
  if (format !== undefined && format !== 'json' && format !== 'pretty')
    throw new UsageError(`rxmcp proxy: --log-format wants json or pretty, not "${format}"`, 'proxy');
  return { level: (level ?? 'info') as LogLevelName, format: format ?? 'pretty' };
}

/** One `--header "Name: value"`. */
export function parseHeader(text: string): [string, string] {
  const at = text.indexOf(':');
  const name = at < 0 ? '' : text.slice(0, at).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    throw new UsageError(`rxmcp connect: --header wants "Name: value", not "${text}"`, 'connect');
  }
  return [name.toLowerCase(), text.slice(at + 1).trim()];
}

function parseConnect(argv: readonly string[]): CliCommand {
  const scanned = scan('connect', argv, CONNECT_FLAGS);
  const [target, extra] = scanned.positionals;
  if (target === undefined) throw new UsageError('rxmcp connect: the server URL is required', 'connect');
  if (extra !== undefined) throw new UsageError(`rxmcp connect: unexpected argument "${extra}"`, 'connect');
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new UsageError(`rxmcp connect: "${target}" is not a URL`, 'connect');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'http+unix:') {
    throw new UsageError(`rxmcp connect: "${target}" is not an http, https or http+unix URL`, 'connect');
  }
  const headers = Object.fromEntries((scanned.options.get('header') ?? []).map(parseHeader));
  const port = single('connect', scanned, 'callback-port');
  const callbackPort = port === undefined ? 0 : parsePort('connect', '--callback-port', port);
  return { kind: 'connect', url, headers, callbackPort };
}

function parseCompletion(argv: readonly string[]): CliCommand {
  const scanned = scan('completion', argv, COMPLETION_FLAGS);
  const [shell, extra] = scanned.positionals;
  if (shell === undefined) throw new UsageError('rxmcp completion: name the shell: bash or zsh', 'completion');
  if (!(COMPLETION_SHELLS as readonly string[]).includes(shell)) {
    throw new UsageError(`rxmcp completion: no completion for "${shell}": bash or zsh`, 'completion');
  }
  if (extra !== undefined) throw new UsageError(`rxmcp completion: unexpected argument "${extra}"`, 'completion');
  return { kind: 'completion', shell: shell as CompletionShell };
}

/** `rxmcp bench`: the targets and the options as given; the command checks their values. */
function parseBench(argv: readonly string[]): CliCommand {
  const scanned = scan('bench', argv, BENCH_FLAGS);
  if (scanned.positionals.length === 0)
    throw new UsageError('rxmcp bench: name a target: a command line or a URL (see the examples)', 'bench');
  return { kind: 'bench', targets: scanned.positionals, options: Object.fromEntries(scanned.options) };
}

const COMMANDS: Readonly<Record<Exclude<HelpTopic, 'rxmcp'>, (argv: readonly string[]) => CliCommand>> = {
  proxy: parseProxy,
  connect: parseConnect,
  bench: parseBench,
  completion: parseCompletion,
};

/**
 * Parses the command line (without `node` and the script). `--help` and `--version` win over any
 * other problem of the same command line; throws {@link UsageError} for anything else amiss.
 */
export function parseArgs(argv: readonly string[]): CliCommand {
  const [first, ...rest] = argv;
  if (first === undefined || first === '-h' || first === '--help') return { kind: 'help', topic: 'rxmcp' };
  if (first === '-v' || first === '--version') return { kind: 'version' };
  if (first === 'help') {
    const topic = rest[0] ?? 'rxmcp';
    if (topic !== 'rxmcp' && !Object.hasOwn(COMMANDS, topic)) {
      throw new UsageError(`rxmcp: unknown command "${topic}"${didYouMean(topic, Object.keys(COMMANDS))}`);
    }
    return { kind: 'help', topic: topic as HelpTopic };
  }
  const parse = Object.hasOwn(COMMANDS, first) ? COMMANDS[first as keyof typeof COMMANDS] : undefined;
  if (!parse) {
    throw new UsageError(
      first.startsWith('-')
        ? `rxmcp: unknown option ${first}${didYouMean(first, ['--help', '--version'])}`
        : `rxmcp: unknown command "${first}"${didYouMean(first, Object.keys(COMMANDS))}`,
    );
  }
  for (const arg of rest) {
    if (arg === '--') break;
    if (arg === '-h' || arg === '--help') return { kind: 'help', topic: first as HelpTopic };
    if (arg === '-v' || arg === '--version') return { kind: 'version' };
  }
  return parse(rest);
}
