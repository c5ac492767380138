/**
 * The `rxmcp` command's arguments: which command, with which options. Pure: nothing here reads a
 * file or the environment, so every rule is tested on its own.
 */
import { UsageError } from './errors';

export { UsageError } from './errors';

/** How `rxmcp proxy` serves the aggregate: on this process's stdin and stdout, or over HTTP. */
export type ServeMode = { readonly kind: 'stdio' } | { readonly kind: 'http'; readonly port: number };

/** A parsed command line. */
export type CliCommand =
  | { readonly kind: 'help'; readonly topic: 'rxmcp' | 'proxy' | 'connect' }
  | { readonly kind: 'version' }
  | { readonly kind: 'proxy'; readonly config: string; readonly serve: ServeMode }
  | {
      readonly kind: 'connect';
      readonly url: URL;
      readonly headers: Readonly<Record<string, string>>;
      /** The loopback port of the OAuth redirect; 0 picks a free one. */
      readonly callbackPort: number;
    };

export const USAGE = {
  rxmcp: `Usage: rxmcp <command> [options]

Commands:
  proxy     serve the MCP servers of a config file as one server (stdio or Streamable HTTP)
  connect   bridge stdio to a remote Streamable HTTP MCP server

Options:
  -h, --help       show help (also: rxmcp <command> --help)
  -v, --version    show the version`,
  proxy: `Usage: rxmcp proxy --config <servers.json> [--http <port> | --stdio]

Starts every server of the file's "mcpServers" (the format desktop clients use) and serves them as
one MCP server whose tools and prompts are named <server>_<name>.

Options:
  -c, --config <file>   the servers file (required)
  --http <port>         serve Streamable HTTP at http://127.0.0.1:<port>/mcp (0: a free port)
  --stdio               serve on stdin and stdout (the default)
  -h, --help            show this help
  -v, --version         show the version`,
  connect: `Usage: rxmcp connect <url> [--header "Name: value"]...

Bridges an MCP client on stdin and stdout to a Streamable HTTP server. When the server asks for
authorization, prints the sign-in URL to stderr and takes the redirect on a loopback port.

Options:
  -H, --header "Name: value"   a header for every request (repeatable)
  --callback-port <port>       the OAuth redirect's loopback port (default: a free one)
  -h, --help                   show this help
  -v, --version                show the version`,
} as const;

/** One option of a command: whether it takes a value. */
type Flags = Readonly<Record<string, { readonly value: boolean; readonly alias?: string }>>;

const COMMON: Flags = { help: { value: false, alias: 'h' }, version: { value: false, alias: 'v' } };
const PROXY_FLAGS: Flags = {
  ...COMMON,
  config: { value: true, alias: 'c' },
  http: { value: true },
  stdio: { value: false },
};
const CONNECT_FLAGS: Flags = { ...COMMON, header: { value: true, alias: 'H' }, 'callback-port': { value: true } };

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
    if (name === undefined || flag === undefined) throw new UsageError(`rxmcp ${command}: unknown option ${written}`);
    let value = 'true';
    if (flag.value) {
      value = inline ?? argv[++i] ?? '';
      if (inline === undefined && i >= argv.length) throw new UsageError(`rxmcp ${command}: ${written} needs a value`);
    } else if (inline !== undefined) throw new UsageError(`rxmcp ${command}: ${written} takes no value`);
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
  if (values && values.length > 1) throw new UsageError(`rxmcp ${command}: --${name} is given more than once`);
  return values?.[0];
}

/** A TCP port: an integer from 0 to 65535. */
export function parsePort(command: string, option: string, text: string): number {
  const port = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(port) || port > 65535) {
    throw new UsageError(`rxmcp ${command}: ${option} wants a port from 0 to 65535, not "${text}"`);
  }
  return port;
}

function parseProxy(argv: readonly string[]): CliCommand {
  const scanned = scan('proxy', argv, PROXY_FLAGS);
  if (scanned.positionals.length > 0)
    throw new UsageError(`rxmcp proxy: unexpected argument "${scanned.positionals[0]}"`);
  const config = single('proxy', scanned, 'config');
  const http = single('proxy', scanned, 'http');
  if (config === undefined || config === '') throw new UsageError('rxmcp proxy: --config <servers.json> is required');
  if (http !== undefined && scanned.options.has('stdio')) {
    throw new UsageError('rxmcp proxy: --http and --stdio are exclusive: pick one');
  }
  const serve: ServeMode =
    http === undefined ? { kind: 'stdio' } : { kind: 'http', port: parsePort('proxy', '--http', http) };
  return { kind: 'proxy', config, serve };
}

/** One `--header "Name: value"`. */
export function parseHeader(text: string): [string, string] {
  const at = text.indexOf(':');
  const name = at < 0 ? '' : text.slice(0, at).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    throw new UsageError(`rxmcp connect: --header wants "Name: value", not "${text}"`);
  }
  return [name.toLowerCase(), text.slice(at + 1).trim()];
}

function parseConnect(argv: readonly string[]): CliCommand {
  const scanned = scan('connect', argv, CONNECT_FLAGS);
  const [target, extra] = scanned.positionals;
  if (target === undefined) throw new UsageError('rxmcp connect: the server URL is required');
  if (extra !== undefined) throw new UsageError(`rxmcp connect: unexpected argument "${extra}"`);
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new UsageError(`rxmcp connect: "${target}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`rxmcp connect: "${target}" is not an http or https URL`);
  }
  const headers = Object.fromEntries((scanned.options.get('header') ?? []).map(parseHeader));
  const port = single('connect', scanned, 'callback-port');
  const callbackPort = port === undefined ? 0 : parsePort('connect', '--callback-port', port);
  return { kind: 'connect', url, headers, callbackPort };
}

const COMMANDS: Readonly<Record<string, (argv: readonly string[]) => CliCommand>> = {
  proxy: parseProxy,
  connect: parseConnect,
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
    if (topic !== 'rxmcp' && !(topic in COMMANDS)) throw new UsageError(`rxmcp: unknown command "${topic}"`);
    return { kind: 'help', topic: topic as 'rxmcp' | 'proxy' | 'connect' };
  }
  const parse = Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
  if (!parse) {
    throw new UsageError(
      first.startsWith('-') ? `rxmcp: unknown option ${first}` : `rxmcp: unknown command "${first}"`,
    );
  }
  for (const arg of rest) {
    if (arg === '--') break;
    if (arg === '-h' || arg === '--help') return { kind: 'help', topic: first as 'proxy' | 'connect' };
    if (arg === '-v' || arg === '--version') return { kind: 'version' };
  }
  return parse(rest);
}
