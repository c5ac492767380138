import type { McpClient } from '../../lib/client/client';
import type { RedisConnection } from '../../lib/cluster/redis-connection';
import type { RedisEventFeeds } from '../../lib/cluster/redis-event-feeds';

/**
 * What a spec of event feeds shared through Redis opens in a test: its Redis connections, its
 * stores and its clients, each added as it is made, all released by `release()` (call it after
 * each test).
 */
export class FeedResources {
  readonly connections: RedisConnection[] = [];
  readonly stores: RedisEventFeeds[] = [];
  readonly clients: McpClient[] = [];

  /** Closes the clients, then the stores, then the connections, and forgets them. */
  async release(): Promise<void> {
    for (const client of this.clients.splice(0)) client.close();
    await Promise.all(this.stores.splice(0).map((store) => store.close()));
    for (const connection of this.connections.splice(0)) await connection.quit().catch(() => undefined);
  }
}
