import type { ObservableInput } from '../rx/rxjs';
import type { RequestContext } from '../connection/dispatcher';
import type { McpClient } from '../client/client-api';
import { principalOf } from '../transport/transport';
import type { AuthInfo, Transport } from '../transport/transport';
import type { EntryFilter } from './name-filter';
import type { UpstreamReconnectOptions } from './reconnect';
import type { PromptPolicy, ToolPolicy } from './upstream-policy';

/**
 * What a connector knows of the downstream client it connects for (`sharing: 'perSession'`): who
 * it is, never its credentials. The caller's token was issued for this server, not for the
 * upstream, and passing it on is forbidden (MCP security best practices, "token passthrough"): a
 * connector obtains its own credentials for the upstream (its own client credentials, a token
 * exchanged for the caller at the authorization server, a key per tenant), chosen by `principal`.
 */
export interface DownstreamInfo {
  /** The downstream session's id, where its transport has sessions (Streamable HTTP). */
  readonly sessionId?: string | undefined;
  /** Who the downstream client is, as a protected HTTP endpoint verified it: its token's claims, not the token. */
  readonly auth?: AuthInfo | undefined;
  /** The principal of `auth` (see `principalOf`): the key to choose the upstream credentials by. */
  readonly principal?: string | undefined;
  /**
   * The HTTP headers of the downstream request that needed the connection, where it came over
   * HTTP, without the ones that carry credentials (`authorization`, `proxy-authorization`,
   * `cookie`, `dpop`).
   */
  readonly headers?: Readonly<Record<string, string | string[] | undefined>> | undefined;
  /**
   * What the downstream client declared (`sampling`, `elicitation`, `roots`...): an upstream
   * connection of its own may declare the same, so the upstream asks only what it can answer.
   */
  readonly capabilities?: Record<string, unknown> | undefined;
  /** The downstream client's name and version. */
  readonly clientInfo?: Record<string, unknown> | undefined;
}

/** What a connector is told when asked for a connection. */
export interface UpstreamContext {
  /** The upstream's key in `aggregate`'s record. */
  readonly upstream: string;
  /** 0 for the first connection; n for the nth retry since the last connection failed or closed. */
  readonly attempt: number;
  /** The downstream client the connection is for; only with `sharing: 'perSession'`. */
  readonly downstream?: DownstreamInfo;
}

/**
 * Opens a connection to an upstream server: a connected client, as a Promise or an Observable
 * (its first value). The aggregate owns what it gets: it closes the client when done with it.
 */
export type UpstreamConnectFunction = (context: UpstreamContext) => PromiseLike<McpClient> | ObservableInput<McpClient>;

/** An upstream the aggregate connects, and reconnects, itself. */
export interface UpstreamConnector {
  readonly connect: UpstreamConnectFunction;
}

/**
 * One upstream of an aggregate, with its policies. Only `upstream` is required.
 *
 * @example
 * aggregate({
 *   files: { upstream: filesClient, tools: { include: 'read_*', rename: { read_file: 'read' } } },
 *   web: { upstream: { connect: () => connect(createStreamableHttpClientTransport({ url }), info) }, namespace: '' },
 *   crm: {
 *     upstream: ({ downstream }) => connect(crmTransportFor(downstream?.auth), info),
 *     sharing: 'perSession',
 *     tools: { arguments: { '*': { tenant: { hidden: 'acme' } } } },
 *   },
 * });
 */
export interface UpstreamConfig {
  /** A connected client (the caller's: never closed nor reconnected by the aggregate), or a connector. */
  readonly upstream: McpClient | UpstreamConnector | UpstreamConnectFunction;
  /** The prefix of its names and URIs. Default: its key. `''`: none (its names are shown as they are). */
  readonly namespace?: string;
  readonly tools?: ToolPolicy;
  readonly prompts?: PromptPolicy;
  /** Which resources (by URI) and resource templates (by URI template) are shown and served. */
  readonly resources?: EntryFilter;
  /**
   * A connector only. `'shared'` (the default): one connection, made at once, for every downstream
   * client. `'perSession'`: one connection per downstream session, made on the session's first
   * request that needs the upstream and closed with the session (a modern downstream request
   * gets one of its own, closed when it ends), for upstreams that hold per-user state or credentials.
   * The connector is told who the caller is (`downstream.auth`, `downstream.principal`), never the
   * caller's credentials: it obtains its own for the upstream.
   */
  readonly sharing?: 'shared' | 'perSession';
  /** A shared connector only: how it is reconnected, over the aggregate's `reconnect`. `false`: never. */
  readonly reconnect?: UpstreamReconnectOptions | false;
}

/** An entry of `aggregate`'s record: a connected client, a connector, or an {@link UpstreamConfig}. */
export type UpstreamEntry = McpClient | UpstreamConnector | UpstreamConnectFunction | UpstreamConfig;

/** An entry in its one full form. */
export interface NormalizedUpstream extends Omit<UpstreamConfig, 'upstream'> {
  readonly client?: McpClient;
  readonly connect?: UpstreamConnectFunction;
}

function isConfig(entry: UpstreamEntry): entry is UpstreamConfig {
  return typeof entry === 'object' && entry !== null && 'upstream' in entry;
}

function isConnector(entry: unknown): entry is UpstreamConnector {
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof (entry as { connect?: unknown }).connect === 'function' &&
    !('request' in entry)
  );
}

/** Reads an entry of `aggregate`'s record; throws a `TypeError` naming the upstream when it is none of its forms. */
export function normalizeUpstream(key: string, entry: UpstreamEntry): NormalizedUpstream {
  const config: UpstreamConfig = isConfig(entry) ? entry : { upstream: entry };
  const { upstream, ...policies } = config;
  if (typeof upstream === 'function') return { ...policies, connect: upstream };
  if (isConnector(upstream)) return { ...policies, connect: (context) => upstream.connect(context) };
  if (typeof upstream !== 'object' || upstream === null || typeof upstream.request !== 'function')
    throw new TypeError(`Upstream "${key}" is neither a connected client nor a connector`);
  if (config.sharing === 'perSession')
    throw new TypeError(`Upstream "${key}" is one connected client: 'perSession' needs a connector`);
  return { ...policies, client: upstream };
}

/**
 * The request headers that carry a caller's credentials, which no connector is given: those of
 * HTTP and OAuth, and `x-api-key`, where an API key (as `rxmcp proxy`'s `auth.apiKey` takes it) travels.
 */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'dpop', 'x-api-key']);

/** `headers` without the ones that carry credentials, whatever their case. */
function withoutCredentials(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Readonly<Record<string, string | string[] | undefined>> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())));
}

/**
 * What a connector is told of the downstream client on `transport` (none for a modern request)
 * and its request `context`: its verified identity and principal, and its request headers less
 * the credential ones.
 */
export function downstreamInfo(
  transport: Transport | undefined,
  context: RequestContext | undefined,
  connection?: {
    readonly peerCapabilities: Record<string, unknown> | undefined;
    readonly peerInfo: Record<string, unknown> | undefined;
  },
): DownstreamInfo {
  const headers =
    context?.peer?.headers ?? (context !== undefined ? transport?.requestHeaders?.(context.requestId) : undefined);
  const auth = context?.peer?.auth ?? transport?.auth;
  const principal = principalOf(auth);
  const capabilities = context?.peer?.clientCapabilities ?? connection?.peerCapabilities;
  const clientInfo = context?.peer?.clientInfo ?? connection?.peerInfo;
  return {
    ...(transport?.sessionId !== undefined ? { sessionId: transport.sessionId } : {}),
    ...(auth !== undefined ? { auth } : {}),
    ...(principal !== undefined ? { principal } : {}),
    ...(headers !== undefined ? { headers: withoutCredentials(headers) } : {}),
    ...(capabilities !== undefined ? { capabilities } : {}),
    ...(clientInfo !== undefined ? { clientInfo } : {}),
  };
}
