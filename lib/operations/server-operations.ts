/**
 * The operations side of an MCP server: whether it is alive and ready, its metrics, and a log
 * line per call. {@link ServerOperations} holds the state; the HTTP servers serve it.
 */
import type { Logger } from 'pino';
import { childLogger } from '../base/logger';
import type { LoggerOption } from '../base/logger';
import { CallTracker } from './call-tracker';
import { ServerMetrics } from './server-metrics';

/**
 * One readiness check: `true` when ready; `false`, or a sentence saying what is wrong, when not. A
 * check that throws, rejects or takes longer than `readinessTimeoutMs` is not ready.
 */
export type ReadinessCheck = () => boolean | string | PromiseLike<boolean | string>;

/** What `/readyz` answers (its JSON body): ready when every check is. */
export interface ReadinessReport {
  readonly ready: boolean;
  /** Each check by name, with what is wrong when it is not ready. */
  readonly checks: Readonly<Record<string, { readonly ready: boolean; readonly detail?: string }>>;
}

/** Who may read `/metrics`. */
export type MetricsAccess =
  /** Whoever the server's `auth` lets in (any valid token); open when the server has no `auth`. */
  | 'auth'
  /** Anyone who reaches the port (Host and Origin checks still apply). */
  | 'open'
  /** A scraper that sends `Authorization: Bearer <token>` with this token (Prometheus' `authorization.credentials`). */
  | { readonly bearerToken: string };

/**
 * The operations endpoints and per-call accounting of a Streamable HTTP server
 * (`startStreamableHttpServer({ operations })`). With `operations` given, each part is on unless
 * switched off; without it, none is, and serving a call costs nothing more.
 *
 * Off by default in the library: the paths and the log lines are the application's to choose, and a
 * server embedded in another HTTP application often has its own. `rxmcp proxy --http` turns them
 * on, as a process run on its own wants them.
 */
export interface OperationsOptions {
  /**
   * `GET /healthz` (200 while the process serves) and `GET /readyz` (200 when every `readiness`
   * check passes, else 503; both with a JSON body naming each check). `true` (the default) for
   * those paths, or other paths. They answer without `auth`: they say no more than which
   * dependencies are ready.
   */
  readonly health?: boolean | { readonly livePath?: string; readonly readyPath?: string };
  /**
   * What must be ready for `/readyz` to answer 200, by name (`redis`, `upstream:files`). The record
   * is read at each request: entries its owner adds or removes later (a proxy's upstreams after a
   * reload) are followed.
   */
  readonly readiness?: Readonly<Record<string, ReadinessCheck>>;
  /** How long a readiness check may take before it counts as not ready. Default 2 s. */
  readonly readinessTimeoutMs?: number;
  /**
   * `GET /metrics` in the Prometheus text format 0.0.4: `true` (the default) for that path, or
   * another path. It names the methods and tools called and how often: see `metricsAccess`.
   */
  readonly metrics?: boolean | string;
  /**
   * Who may read `/metrics`. Default `'auth'`: on a server with `auth` the scraper needs a valid
   * token as any client does; on one without, the port's reach (127.0.0.1 by default) is the
   * protection. A bearer token of its own suits a scraper that cannot take part in OAuth.
   */
  readonly metricsAccess?: MetricsAccess;
  /**
   * A line at info through the server's `logger` for each call answered: `method`, `tool` (for
   * `tools/call` and `prompts/get`), `upstream` (see `upstreamOf`), `sessionId`, `durationMs`,
   * `outcome` (`ok`, `error`, `tool_error`, `cancelled`, `closed`). Default true. Durations, here
   * and in the histogram, are read from the global `performance` found when the server starts: a
   * fake clock a test installs later is not read.
   */
  readonly callLog?: boolean;
  /** Each upstream's health, for a proxy: `mcp_upstream_up{upstream}` (1 or 0). */
  readonly upstreams?: () => Readonly<Record<string, boolean>>;
  /** The upstream serving the tool or prompt `name`, for a proxy's call lines. */
  readonly upstreamOf?: (name: string) => string | undefined;
}

/** The default of `OperationsOptions.readinessTimeoutMs`. */
export const DEFAULT_READINESS_TIMEOUT_MS = 2000;

/** Where each operations endpoint is served, `undefined` where it is off. */
export interface OperationsPaths {
  readonly live: string | undefined;
  readonly ready: string | undefined;
  readonly metrics: string | undefined;
}

/**
 * The state of a server's operations: its metrics, the tracker of its calls, its readiness checks.
 * Made by `startStreamableHttpServer` from `operations`; a cluster makes one itself to add its
 * Redis check and to count the calls of the handler it builds.
 */
export class ServerOperations {
  readonly metrics: ServerMetrics | undefined;
  readonly calls: CallTracker;
  readonly paths: OperationsPaths;
  /** The sessions open now, for `mcp_sessions_open`; the server sets it once its handler exists. */
  sessionCount: (() => number) | undefined;

  constructor(
    readonly options: OperationsOptions,
    logger?: LoggerOption,
  ) {
    const health = options.health ?? true;
    const healthPaths = typeof health === 'object' ? health : {};
    const metrics = options.metrics ?? true;
    this.paths = {
      live: health === false ? undefined : (healthPaths.livePath ?? '/healthz'),
      ready: health === false ? undefined : (healthPaths.readyPath ?? '/readyz'),
      metrics: metrics === false ? undefined : metrics === true ? '/metrics' : metrics,
    };
    this.metrics =
      this.paths.metrics === undefined
        ? undefined
        : new ServerMetrics({
            sessions: () => this.sessionCount?.() ?? 0,
            ...(options.upstreams ? { upstreams: options.upstreams } : {}),
          });
    const log: Logger | undefined =
      options.callLog === false ? undefined : childLogger(logger, { component: 'operations' });
    this.calls = new CallTracker({ metrics: this.metrics, log, upstreamOf: options.upstreamOf });
  }

  /** Whether calls are followed at all (metrics or log lines): when not, the handler skips them. */
  get tracking(): boolean {
    return this.metrics !== undefined || this.options.callLog !== false;
  }

  /** Runs every readiness check at once, each bounded by `readinessTimeoutMs`. */
  async readiness(): Promise<ReadinessReport> {
    const timeoutMs = this.options.readinessTimeoutMs ?? DEFAULT_READINESS_TIMEOUT_MS;
    const entries = Object.entries(this.options.readiness ?? {});
    const results = await Promise.all(entries.map(([, check]) => bounded(check, timeoutMs)));
    const checks: Record<string, { ready: boolean; detail?: string }> = {};
    entries.forEach(([name], index) => (checks[name] = results[index]!));
    return { ready: results.every((result) => result.ready), checks };
  }
}

/** One check's result, `timeoutMs` at most after it started. */
async function bounded(check: ReadinessCheck, timeoutMs: number): Promise<{ ready: boolean; detail?: string }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    const outcome = await Promise.race([Promise.resolve().then(check), late]);
    if (outcome === true) return { ready: true };
    return { ready: false, detail: outcome === false ? 'not ready' : outcome };
  } catch (error) {
    return { ready: false, detail: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
