/** The options of `aggregate`, apart so that its request handlers can read them. */
import type { LoggerOption } from '../base/logger';
import type { CollisionPolicy } from './collisions';
import type { ProxyRouter } from './proxy-router';
import type { ServerMiddleware } from '../server/middleware';
import type { UpstreamReconnectOptions } from './reconnect';

/** Options of {@link aggregate}. */
export interface AggregateOptions {
  /** The aggregate's name downstream (`serverInfo.name`). Default `rxmcp-aggregate`. */
  readonly name?: string;
  readonly version?: string;
  readonly instructions?: string;
  /** Between an upstream's namespace and a tool's or prompt's name: `files_read`. Default `_`. */
  readonly separator?: string;
  /** What happens when two upstreams show a tool or prompt under the same name. Default `'prefix'`. */
  readonly collisions?: CollisionPolicy;
  /**
   * How upstreams given as connectors are reconnected when their connection fails or closes (an
   * upstream's own `reconnect` wins). Default: 500 ms doubling to 30 s, no jitter, never giving up.
   */
  readonly reconnect?: UpstreamReconnectOptions;
  /** How long a forwarded request may wait without an answer or progress. Default 60 s. */
  readonly requestTimeoutMs?: number;
  /** Carries every upstream's sampling and elicitation to the downstream caller (see `createProxyRouter`). */
  readonly router?: ProxyRouter;
  /**
   * Server middleware around every request the aggregate serves, as `createServer`'s `middleware`:
   * `rateLimit`, `concurrencyLimit`, `toolPolicy` (tool names as the aggregate shows them)...
   * keyed on the caller's principal where the endpoint has `auth`.
   */
  readonly middleware?: readonly ServerMiddleware[];
  readonly logger?: LoggerOption;
}
