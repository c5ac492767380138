/**
 * Serving the aggregate of `rxmcp proxy`: on this process's stdin and stdout (one client), or as a
 * Streamable HTTP endpoint on 127.0.0.1 (any number of clients: sessions of the handshake
 * revisions, and requests of the stateless ones, side by side).
 */
import { firstValueFrom } from '../rx/rxjs';
import type { LoggerOption } from '../jsonrpc/logger';
import type { McpProxy } from '../proxy/front';
import { createStdioServerTransport } from '../transport/stdio/stdio-server-transport';
import { startStreamableHttpServer } from '../transport/streamable-http/streamable-http-server';
import type { OperationsOptions } from '../operations/server-operations';
import type { RequestAuthenticator } from '../transport/http/request-auth';
import type { Logger } from 'pino';
import type * as Pino from 'pino';
import type { McpClient } from '../client/client-api';
import { DEFAULT_HOST } from './args';
import type { LogSettings, ServeMode } from './args';

/** The aggregate being served. */
export interface Serving {
  /** Where it is served: the endpoint URL, or `stdio`. */
  readonly where: string;
  /** Resolves when serving ended on its own (under stdio: the client closed stdin). */
  readonly ended: Promise<string>;
  /** Stops serving; resolves once every listener is closed. */
  close(): Promise<void>;
}

/** The streams `--stdio` serves on. */
export interface StdioStreams {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  /** Where `--log-level` records go. */
  readonly stderr?: { write(text: string): unknown };
}

/** What the operations endpoints of `--http` know of the upstreams: each one's latest client, by name. */
export interface ServedUpstreams {
  readonly upstreams?: ReadonlyMap<string, { readonly client: McpClient }>;
  /** `--log-level` and `--log-format`: the HTTP server logs there (a line per call at info). */
  readonly log?: LogSettings | undefined;
  /** What an upstream's tools are named with: its namespace and the separator (`files_`). Default `<name>_`. */
  readonly prefixOf?: (name: string) => string;
  /**
   * Who may call the HTTP endpoint (the servers file's `auth`). The verified caller is the
   * principal of limits and policies; its token stays here (upstreams never see it).
   */
  readonly auth?: RequestAuthenticator | undefined;
}

/** Whether `host` is this machine only: an endpoint there is reached by local processes alone. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare) || bare === '::ffff:127.0.0.1';
}

/** Serves `proxy` as `mode` asks. Rejects when the HTTP port cannot be bound. */
export async function serveProxy(
  proxy: McpProxy,
  mode: ServeMode,
  streams: StdioStreams,
  logger: LoggerOption,
  served: ServedUpstreams = {},
): Promise<Serving> {
  if (mode.kind === 'http') {
    const running = await startStreamableHttpServer({
      server: proxy,
      port: mode.port,
      host: mode.host ?? DEFAULT_HOST,
      ...(served.auth ? { auth: served.auth } : {}),
      logger: served.log && streams.stderr ? stderrLogger(served.log, streams.stderr) : logger,
      // A process run on its own: /healthz, /readyz and /metrics on (where the endpoint is).
      operations: proxyOperations(served.upstreams ?? new Map(), served.prefixOf ?? ((name) => `${name}_`)),
    });
    return {
      where: running.url.href,
      // An HTTP server keeps serving until it is closed.
      ended: new Promise<string>(() => undefined),
      close: () => running.close(),
    };
  }
  const transport = createStdioServerTransport({ stdin: streams.stdin, stdout: streams.stdout, logger });
  proxy.connect(transport);
  return {
    where: 'stdio',
    ended: firstValueFrom(transport.closed$).then((close) => close.reason),
    close: () => {
      transport.close('rxmcp is shutting down');
      return Promise.resolve();
    },
  };
}

/** The operations of the proxy's HTTP front: each upstream ready while its client is not shut down. */
function proxyOperations(
  upstreams: ReadonlyMap<string, { readonly client: McpClient }>,
  prefixOf: (name: string) => string,
): OperationsOptions {
  const up = (name: string) => upstreams.get(name)?.client.state !== 'shutdown';
  const names = [...upstreams.keys()].sort((a, b) => prefixOf(b).length - prefixOf(a).length);
  return {
    readiness: Object.fromEntries(
      names.map((name) => [`upstream:${name}`, () => up(name) || `upstream ${name} is disconnected`]),
    ),
    upstreams: () => Object.fromEntries(names.map((name) => [name, up(name)])),
    // Tools and prompts are named <namespace><separator><name>; the longest prefix that fits wins.
    upstreamOf: (tool) => names.find((name) => prefixOf(name) !== '' && tool.startsWith(prefixOf(name))),
  };
}

/** A pino logger writing to `stderr` from `settings.level`, as JSON lines or pretty ones. */
function stderrLogger(settings: LogSettings, stderr: { write(text: string): unknown }): Logger {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { pino } = require('pino') as typeof Pino;
  const write =
    settings.format === 'json'
      ? (line: string) => void stderr.write(line)
      : (line: string) => void stderr.write(pretty(line));
  return pino({ level: settings.level, base: undefined }, { write });
}

const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** One JSON record as `12:00:00.000 INFO call method=tools/call tool=files_read outcome=ok`. */
function pretty(line: string): string {
  const { time, level, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
  const clock = new Date(typeof time === 'number' ? time : Date.now()).toISOString().slice(11, 23);
  const rest = Object.entries(fields).map(
    ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
  return `${clock} ${LEVEL_NAMES[level as number] ?? String(level)} ${String(msg ?? '')}${rest.length ? ' ' + rest.join(' ') : ''}\n`;
}
