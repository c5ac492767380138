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

/** What `redis` may be in the cluster's options: a URL (`redis://host:port/db`) or a client. */
export type RedisSource = string | RedisConnection;

interface IoRedisModule {
  readonly default: new (url: string, options: Record<string, unknown>) => RedisConnection;
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
  const Redis = module.default;
  const client = new Redis(url, { enableAutoPipelining: true, lazyConnect: false, maxRetriesPerRequest: 2 });
  try {
    await client.call('PING', []);
  } catch (error) {
    void client.quit().catch(() => undefined);
    // The URL may carry a password: name only where Redis is.
    throw new Error(`cannot reach Redis at ${hostOf(url)}`, { cause: error });
  }
  return client;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the given URL';
  }
}
