import type pino from 'pino';
import type { RedisConnection } from './redis-connection';

/** One cluster-wide event as it travels: its topic and JSON payload. */
interface BusMessage {
  readonly topic: string;
  readonly payload: unknown;
  /** Its id in the cluster's event log, when it was logged (see `BusLog`). */
  readonly id?: string;
}

/**
 * Cluster-wide events on one Redis pub/sub channel: what one process publishes, every process
 * (itself included) receives, in the order it was published. Delivery is at most once: a process
 * that is not connected when an event is published does not see it. Once its connection is back
 * and subscribed again, {@link ClusterBus.onResubscribed} tells it to catch up from the event log.
 */
export class ClusterBus {
  private readonly listeners = new Map<string, Set<(payload: unknown, id?: string) => void>>();
  private readonly resubscribed = new Set<() => void>();

  private constructor(
    private readonly publisher: RedisConnection,
    private readonly subscriber: RedisConnection,
    private readonly channel: string,
    private readonly log: pino.Logger,
  ) {}

  /** Subscribes a second connection of `redis` to `channel`. */
  static async open(redis: RedisConnection, channel: string, log: pino.Logger): Promise<ClusterBus> {
    const subscriber = redis.duplicate();
    const bus = new ClusterBus(redis, subscriber, channel, log);
    subscriber.on('message', (from, text) => {
      if (from === channel) bus.receive(text);
    });
    await subscriber.subscribe(channel);
    // Back after a cut (ioredis subscribes again as it reconnects): once that is confirmed, what was
    // published meanwhile can be read from the log, and what is published next arrives here.
    subscriber.on('ready', () => {
      subscriber.subscribe(channel).then(
        () => {
          for (const listener of bus.resubscribed) listener();
        },
        (error: unknown) => log.warn({ err: error }, 'cannot subscribe to the cluster events again'),
      );
    });
    return bus;
  }

  /** Calls `listener` each time the subscription is back after its connection was lost; returns a function that stops it. */
  onResubscribed(listener: () => void): () => void {
    this.resubscribed.add(listener);
    return () => this.resubscribed.delete(listener);
  }

  /** Publishes an event; `id`: its id in the cluster's event log, when it was logged first. */
  async publish(topic: string, payload: unknown, id?: string): Promise<void> {
    const message: BusMessage = id === undefined ? { topic, payload } : { topic, payload, id };
    await this.publisher.call('PUBLISH', [this.channel, JSON.stringify(message)]);
  }

  /** Calls `listener` with the payload (and log id) of each event of `topic`; returns a function that stops it. */
  on(topic: string, listener: (payload: unknown, id?: string) => void): () => void {
    let set = this.listeners.get(topic);
    if (!set) this.listeners.set(topic, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await this.subscriber.quit();
  }

  private receive(text: string): void {
    let message: BusMessage;
    try {
      message = JSON.parse(text) as BusMessage;
    } catch (error) {
      this.log.warn({ err: error }, 'cluster event is not JSON: ignored');
      return;
    }
    for (const listener of this.listeners.get(message.topic) ?? []) {
      try {
        listener(message.payload, message.id);
      } catch (error) {
        this.log.error({ err: error, topic: message.topic }, 'cluster event listener failed');
      }
    }
  }
}
