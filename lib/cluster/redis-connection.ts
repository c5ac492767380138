/**
 * The part of a Redis client the cluster mode uses, declared here so that nothing in rxmcp's types
 * depends on a Redis package: an `ioredis` client fits as it is. ioredis is loaded only when a
 * cluster connects by URL, so a server that never runs as a cluster does not load it.
 */
export interface RedisConnection {
  /** Runs one Redis command; with ioredis's auto-pipelining, calls made together share a round trip. */
  call(command: string, args: (string | number)[]): Promise<unknown>;
  /** Subscribes this connection (which then serves only pub/sub) to a channel. */
  subscribe(channel: string): Promise<unknown>;
  /** `message`: a message published on a channel this connection subscribed to. */
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  /**
   * `ready`: the connection is usable again after it was lost (ioredis reconnects by itself). The
   * cluster then writes again what Redis may have lost (a server restarted empty).
   */
  on(event: 'ready', listener: () => void): unknown;
  /** Removes a `ready` listener added with `on`. */
  off?(event: 'ready', listener: () => void): unknown;
  /** A second connection to the same server, for pub/sub. */
  duplicate(): RedisConnection;
  /** Closes the connection. */
  quit(): Promise<unknown>;
}

/**
 * What `redis` may be in the cluster's options: a URL or a client. The URL names one server
 * (`redis://[:password@]host:port/db`, `rediss://` for TLS), a Redis Cluster by some of its nodes
 * (`redis+cluster://host:port,host:port`; the client finds the others), or a primary watched by
 * Sentinel (`redis+sentinel://host:port,host:port/<primary name>`; the client follows failovers).
 */
export type RedisSource = string | RedisConnection;

type IoRedisClass = new (...args: unknown[]) => RedisConnection;

interface IoRedisModule {
  readonly default: IoRedisClass & { readonly Cluster: IoRedisClass };
}

/** Loads ioredis on first use (it is an optional peer dependency). */
function loadIoRedis(): IoRedisModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('ioredis') as IoRedisModule;
}

/**
 * Connects to Redis at `url` with ioredis (an optional peer dependency: install it to use the
 * cluster mode). Commands are auto-pipelined. Rejects with a message naming the package when it is
 * missing, and when the server cannot be reached.
 */
export async function connectRedis(url: string): Promise<RedisConnection> {
  let module: IoRedisModule;
  try {
    module = loadIoRedis();
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error('the cluster mode needs the ioredis package: npm install ioredis', { cause: error });
  }
  const client = withErrorsHandled(clientFor(module, url));
  try {
    await client.call('PING', []);
  } catch (error) {
    void client.quit().catch(() => undefined);
    // The URL may carry a password: name only where Redis is.
    throw new Error(`cannot reach Redis at ${hostOf(url)}`, { cause: error });
  }
  return client;
}

/**
 * Gives an ioredis client (and the copies `duplicate` makes of it) a listener of its `error` events:
 * a lost connection is retried by the client, and the commands meanwhile fail (or wait) where they
 * were sent, so the events need no other handling (without a listener, ioredis prints each one).
 * A client that has no `error` event is returned as it is.
 */
export function withErrorsHandled(client: RedisConnection): RedisConnection {
  const emitter = client as unknown as { on?(event: string, listener: () => void): unknown };
  if (typeof emitter.on !== 'function') return client;
  emitter.on('error', () => undefined);
  const duplicate = client.duplicate.bind(client);
  client.duplicate = () => withErrorsHandled(duplicate());
  return client;
}

const CLIENT_OPTIONS = { enableAutoPipelining: true, lazyConnect: false, maxRetriesPerRequest: 2 };

/** The nodes a `redis+cluster:` or `redis+sentinel:` URL lists, and what else it says. */
function parseNodes(url: string): { nodes: Array<{ host: string; port: number }>; path: string; password?: string } {
  const rest = url.slice(url.indexOf('//') + 2);
  const at = rest.lastIndexOf('@', rest.indexOf('/') < 0 ? rest.length : rest.indexOf('/'));
  const credentials = at < 0 ? '' : rest.slice(0, at);
  const hostPart = at < 0 ? rest : rest.slice(at + 1);
  const slash = hostPart.indexOf('/');
  const hosts = slash < 0 ? hostPart : hostPart.slice(0, slash);
  const path = slash < 0 ? '' : decodeURIComponent(hostPart.slice(slash + 1));
  const nodes = hosts
    .split(',')
    .filter((node) => node !== '')
    .map((node) => {
      const colon = node.lastIndexOf(':');
      return colon < 0
        ? { host: node, port: 6379 }
        : { host: node.slice(0, colon), port: Number(node.slice(colon + 1)) };
    });
  if (nodes.length === 0 || nodes.some((node) => !Number.isInteger(node.port)))
    throw new Error('the Redis URL lists no valid host:port');
  const password = credentials.includes(':') ? decodeURIComponent(credentials.slice(credentials.indexOf(':') + 1)) : '';
  return password === '' ? { nodes, path } : { nodes, path, password };
}

/** An ioredis client for `url`: one server, a Redis Cluster, or a primary found through Sentinel. */
function clientFor(module: IoRedisModule, url: string): RedisConnection {
  const Redis = module.default;
  if (url.startsWith('redis+cluster://')) {
    const { nodes, password } = parseNodes(url);
    const redisOptions = password === undefined ? {} : { password };
    return new Redis.Cluster(nodes, { ...CLIENT_OPTIONS, redisOptions });
  }
  if (url.startsWith('redis+sentinel://')) {
    const { nodes, path, password } = parseNodes(url);
    if (path === '') throw new Error('a redis+sentinel URL names its primary: redis+sentinel://host:port/<name>');
    return new Redis({
      ...CLIENT_OPTIONS,
      sentinels: nodes,
      name: path,
      ...(password === undefined ? {} : { password }),
    });
  }
  return new Redis(url, CLIENT_OPTIONS);
}

function hostOf(url: string): string {
  try {
    if (url.startsWith('redis+'))
      return parseNodes(url)
        .nodes.map((node) => `${node.host}:${node.port}`)
        .join(',');
    return new URL(url).host;
  } catch {
    return 'the given URL';
  }
}
