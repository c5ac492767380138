/**
 * The example server's command line: how it serves (stdio, Streamable HTTP, one process of a
 * Redis cluster), with which protection, and its help. Pure: the environment comes in as an
 * argument, so every rule is tested on its own.
 */

/** How to check access tokens: the authorization server that issues them, and the scopes to publish. */
export interface ExampleAuth {
  readonly issuer: string;
  readonly scopes?: readonly string[];
}

/** What the command line asks for. */
export type ServerCommandLine =
  | { readonly kind: 'help' }
  | { readonly kind: 'stdio' }
  | {
      readonly kind: 'http';
      readonly port: number;
      readonly auth?: ExampleAuth;
      /** The web origins allowed to call the endpoint, or any (`'*'`). */
      readonly cors?: { readonly origins: '*' | readonly string[] };
      readonly redis?: string;
    };

/** A mistake on the command line: one line on stderr, exit code 2. */
export class ServerUsageError extends Error {
  override readonly name = 'ServerUsageError';
}

const PROGRAM = 'rxmcp everything-server';

export const SERVER_USAGE = `Usage: node dist/examples/conformance/everything-server.js [--http [port] | --port <port>] [options]

rxmcp's example server: every server feature in one place, with the tools, resources and prompts
the official MCP conformance suite expects. Without --http or --port it speaks MCP on stdin and
stdout (stdout carries protocol messages only; logs go to stderr).

Options:
  --http [port]        serve Streamable HTTP at http://127.0.0.1:<port>/mcp, and the 2024-11-05
                       HTTP+SSE transport at /sse (port: PORT, else 3000; 0 picks a free one)
  --port <port>        the same as --http <port>
  --auth <issuer>      accept only the JWT access tokens that this authorization server issues
  --scopes "<a> <b>"   with --auth: the scopes clients should ask for
  --cors <origins|*>   let web pages of these origins (comma-separated), or any, call the endpoint
  --redis <url>        serve as one process of a cluster on that Redis (start several)
  -h, --help           show this help

Examples:
  node dist/examples/conformance/everything-server.js                 stdio, for a desktop client's config
  node dist/examples/conformance/everything-server.js --http 3000     http://127.0.0.1:3000/mcp
  PORT=0 node dist/examples/conformance/everything-server.js --http   a free port, printed on stdout
  node dist/examples/conformance/everything-server.js --http 3000 --cors http://localhost:5173
  node dist/examples/conformance/everything-server.js --http 3001 --redis redis://127.0.0.1:6379

Environment:
  PORT        the HTTP port when --http names none (default 3000)
  LOG_LEVEL   what is logged on stderr: fatal, error (the default), warn, info, debug, trace, silent

Exit codes: 0 stopped (stdin closed, Ctrl-C, SIGTERM), 1 could not serve, 2 a bad command line.`;

/** The options: whether each takes a value (`'optional'`: `--http` takes a port or none). */
const OPTIONS: Readonly<Record<string, 'none' | 'required' | 'optional'>> = {
  help: 'none',
  http: 'optional',
  port: 'required',
  auth: 'required',
  scopes: 'required',
  cors: 'required',
  redis: 'required',
};

function fail(message: string): never {
  throw new ServerUsageError(`${PROGRAM}: ${message}`);
}

/** The options given, by name, each at most once. */
function scan(argv: readonly string[]): Map<string, string | undefined> {
  const given = new Map<string, string | undefined>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h') {
      given.set('help', undefined);
      continue;
    }
    if (!arg.startsWith('--')) {
      fail(arg.startsWith('-') ? `unknown option ${arg}` : `unexpected argument "${arg}"`);
    }
    const at = arg.indexOf('=');
    const name = at > 0 ? arg.slice(2, at) : arg.slice(2);
    const kind = Object.hasOwn(OPTIONS, name) ? OPTIONS[name] : undefined;
    if (kind === undefined) fail(`unknown option ${at > 0 ? arg.slice(0, at) : arg}`);
    if (given.has(name)) fail(`--${name} is given more than once`);
    let value: string | undefined = at > 0 ? arg.slice(at + 1) : undefined;
    if (kind === 'none' && value !== undefined) fail(`--${name} takes no value`);
    const next = argv[i + 1];
    if (value === undefined && kind === 'required') {
      if (next === undefined) fail(`--${name} needs a value`);
      value = next;
      i++;
    } else if (value === undefined && kind === 'optional' && next !== undefined && !next.startsWith('-')) {
      value = next;
      i++;
    }
    given.set(name, value);
  }
  return given;
}

function portOf(text: string, where: string): number {
  const port = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(port) || port > 65535) fail(`${where} wants a port from 0 to 65535, not "${text}"`);
  return port;
}

function corsOf(value: string): { origins: '*' | string[] } {
  if (value === '*') return { origins: '*' };
  const origins = value.split(',').filter((origin) => origin !== '');
  if (origins.length === 0 || !origins.every((origin) => /^https?:\/\/[^/]+$/.test(origin)))
    fail('--cors wants * or web origins such as http://localhost:5173 (comma-separated)');
  return { origins };
}

/**
 * Reads the command line (without `node` and the script); `env` supplies `PORT`. `--help` wins
 * over any other problem. Throws {@link ServerUsageError}, naming the option, for anything amiss.
 */
export function parseServerCommandLine(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): ServerCommandLine {
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help' };
  const given = scan(argv);
  const http = given.has('http');
  if (http && given.has('port') && given.get('http') !== undefined)
    fail('give the port once: --http <port> or --port <port>');
  if (!http && !given.has('port')) {
    const needsHttp = ['auth', 'scopes', 'cors', 'redis'].find((name) => given.has(name));
    if (needsHttp) fail(`--${needsHttp} serves over HTTP: add --http [port]`);
    return { kind: 'stdio' };
  }
  const written = given.get('port') ?? given.get('http');
  const port =
    written !== undefined
      ? portOf(written, given.has('port') ? '--port' : '--http')
      : env.PORT !== undefined && env.PORT !== ''
        ? portOf(env.PORT, 'PORT')
        : 3000;
  const issuer = given.get('auth');
  if (issuer !== undefined && !/^https?:\/\//.test(issuer))
    fail(`--auth wants the issuer URL of an authorization server, not "${issuer}"`);
  if (given.has('scopes') && issuer === undefined) fail('--scopes goes with --auth');
  const redis = given.get('redis');
  if (redis !== undefined && !/^rediss?:\/\//.test(redis))
    fail(`--redis wants a Redis URL such as redis://127.0.0.1:6379, not "${redis}"`);
  if (redis !== undefined && (issuer !== undefined || given.has('cors')))
    fail('--redis serves a cluster without --auth or --cors in this example');
  const scopes = given
    .get('scopes')
    ?.split(' ')
    .filter((scope) => scope !== '');
  const cors = given.get('cors');
  return {
    kind: 'http',
    port,
    ...(issuer === undefined ? {} : { auth: scopes === undefined ? { issuer } : { issuer, scopes } }),
    ...(cors === undefined ? {} : { cors: corsOf(cors) }),
    ...(redis === undefined ? {} : { redis }),
  };
}
