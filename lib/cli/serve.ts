/**
 * Serving the aggregate of `rxmcp proxy`: on this process's stdin and stdout (one client), or as a
 * Streamable HTTP endpoint on 127.0.0.1 (any number of clients: sessions of the handshake
 * revisions, and requests of the modern ones, side by side).
 */
import { firstValueFrom } from '../rx/rxjs';
import type { LoggerOption } from '../base/logger';
import type { McpProxy } from '../proxy/front';
import { createStdioServerTransport } from '../transport/stdio/stdio-server-transport';
import { startStreamableHttpServer } from '../transport/http-server/streamable-http/streamable-http-server';
import type { OperationsOptions, ReadinessCheck } from '../operations/server-operations';
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
  /** Reads `ServedUpstreams.members` again (after a reload): `/readyz` and the metrics follow it. */
  upstreamsChanged(): void;
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
  /**
   * The upstreams that should be connected, by name (the shared ones of the servers file): one
   * without a client in `upstreams` yet is not ready. Default: the names in `upstreams`.
   */
  readonly members?: () => readonly string[];
  /** `--log-level` and `--log-format`: the HTTP server logs there (a line per call at info). */
  readonly log?: LogSettings | undefined;
  /** What an upstream's tools are named with: its namespace and the separator (`files_`). Default `<name>_`. */
  readonly prefixOf?: (name: string) => string;
  /**
   * Who may call the HTTP endpoint (the servers file's `auth`). The verified caller is the
   * principal of limits and policies; its token stays here (upstreams never see it).
   */
  readonly auth?: RequestAuthenticator | undefined;
  /** The bearer token a scraper of `/metrics` presents, read at each scrape; absent: `/metrics` takes `auth`. */
  readonly metricsToken?: string | undefined;
  /** More checks of `/readyz` (the gateway's Redis), read again with the members. */
  readonly readiness?: Readonly<Record<string, ReadinessCheck>>;
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
    const upstreams = new UpstreamStates(
      served.upstreams ?? new Map(),
      served.members,
      served.prefixOf ?? ((name) => `${name}_`),
      served.readiness,
    );
    const running = await startStreamableHttpServer({
      server: proxy,
      port: mode.port,
      host: mode.host ?? DEFAULT_HOST,
      ...(served.auth ? { auth: served.auth } : {}),
      logger: served.log && streams.stderr ? stderrLogger(served.log, streams.stderr) : logger,
      // A process run on its own: /healthz, /readyz and /metrics on (where the endpoint is).
      operations: {
        ...upstreams.operations(),
        get metricsAccess() {
          const token = served.metricsToken;
          return token ? { bearerToken: token } : undefined;
        },
      },
    });
    return {
      where: running.url.href,
      // An HTTP server keeps serving until it is closed.
      ended: new Promise<string>(() => undefined),
      close: () => running.close(),
      upstreamsChanged: () => upstreams.refresh(),
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
    upstreamsChanged: () => undefined,
  };
}

/**
 * The operations of the proxy's HTTP front: each upstream that should be connected is ready while
 * its client is there and not shut down. The readiness checks are one record, rewritten when the
 * members change (`/readyz` reads it at each request).
 */
class UpstreamStates {
  private readonly checks: Record<string, ReadinessCheck> = {};
  /** The members, longest prefix first (a tool is named by the longest prefix that fits). */
  private names: readonly string[] = [];

  constructor(
    private readonly upstreams: ReadonlyMap<string, { readonly client: McpClient }>,
    private readonly members: (() => readonly string[]) | undefined,
    private readonly prefixOf: (name: string) => string,
    private readonly more: Readonly<Record<string, ReadinessCheck>> | undefined,
  ) {
    this.refresh();
  }

  /** Reads the members again. */
  refresh(): void {
    const names = this.members?.() ?? [...this.upstreams.keys()];
    this.names = [...names].sort((a, b) => this.prefixOf(b).length - this.prefixOf(a).length);
    for (const key of Object.keys(this.checks)) delete this.checks[key];
    for (const name of this.names) this.checks[`upstream:${name}`] = () => this.state(name);
    Object.assign(this.checks, this.more);
  }

  /** `true`, or what is wrong with the upstream `name`. */
  private state(name: string): true | string {
    const client = this.upstreams.get(name)?.client;
    if (client === undefined) return `upstream ${name} is not connected yet`;
    return client.state !== 'shutdown' || `upstream ${name} is disconnected`;
  }

  operations(): OperationsOptions {
    return {
      readiness: this.checks,
      upstreams: () => Object.fromEntries(this.names.map((name) => [name, this.state(name) === true])),
      // Tools and prompts are named <namespace><separator><name>; the longest prefix that fits wins.
      upstreamOf: (tool) =>
        this.names.find((name) => this.prefixOf(name) !== '' && tool.startsWith(this.prefixOf(name))),
    };
  }
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
