/**
 * Change notifications in the modern revisions (spec 2026-07-28: Subscriptions): one
 * `subscriptions/listen` stream whose filter is what the client's watchers need right now (tool,
 * prompt and resource list changes, updates of watched resources). When the need changes, a new
 * stream opens with the new filter and, once the server acknowledged it, the old one closes.
 */
import { filter, map, Observable, Subject, takeUntil } from '../rx/rxjs';
import type { SchedulerLike, Subscription } from '../rx/rxjs';
import type { Logger } from 'pino';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { JsonRpcNotification } from '../jsonrpc/message';
import { META } from '../connection/modern';
import type { MessageParams } from '../schema/request-meta';

/**
 * What a watcher waits for: a list's changes (a filter key of the revision, or one an extension
 * adds, such as `eventsListChanged`), or one resource's updates.
 */
export type ListenTopic = string | { readonly resource: string };

/** The news a topic's watchers get from the hub. */
export type TopicEvent =
  /** The server acknowledged the topic: notifications about it flow from now on. */
  | { readonly kind: 'listening' }
  /** The server left the topic out of its acknowledgement, or the stream failed. */
  | { readonly kind: 'refused'; readonly error?: unknown };

/** What the hub needs from its client. */
export interface SubscriptionHubDeps {
  /** Sends a request of the modern revision (the client's requester). */
  request(method: string, params: Record<string, unknown>): Observable<Record<string, unknown>>;
  readonly notifications$: Observable<JsonRpcNotification>;
  readonly closed$: Observable<unknown>;
  /** Where the wait before re-opening a stream that ended is timed. */
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
}

interface SubscriptionFilter {
  /** A list's changes: `toolsListChanged`, `eventsListChanged`. */
  [flag: string]: true | string[] | undefined;
  resourceSubscriptions?: string[];
}

/** A listen stream: its filter, its subscription, and what the server acknowledged. */
interface Stream {
  readonly keys: ReadonlySet<string>;
  subscription?: Subscription;
  acknowledged?: ReadonlySet<string>;
}

/** How long to wait before re-opening a stream the server ended or that broke. */
const REOPEN_DELAY_MS = 1000;

const keyOf = (topic: ListenTopic): string => (typeof topic === 'string' ? topic : `resource:${topic.resource}`);

function filterOf(keys: Iterable<string>): SubscriptionFilter {
  const out: SubscriptionFilter = {};
  for (const key of keys) {
    if (key.startsWith('resource:')) (out.resourceSubscriptions ??= []).push(key.slice('resource:'.length));
    else out[key] = true;
  }
  return out;
}

/** The keys an acknowledgement's `notifications` names. */
function keysOf(notifications: unknown): Set<string> {
  const keys = new Set<string>();
  if (typeof notifications !== 'object' || notifications === null) return keys;
  const ack = notifications as Record<string, unknown>;
  for (const [flag, agreed] of Object.entries(ack)) if (agreed === true) keys.add(flag);
  if (Array.isArray(ack.resourceSubscriptions)) {
    for (const uri of ack.resourceSubscriptions) if (typeof uri === 'string') keys.add(`resource:${uri}`);
  }
  return keys;
}

const sameKeys = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean =>
  a.size === b.size && [...a].every((k) => b.has(k));

/**
 * The listen streams of one client. `watch(topic)` is cold: subscribing adds the topic to the
 * filter, emits `listening` once the server acknowledged it (or `refused`), and unsubscribing
 * removes it. The notifications themselves arrive on the connection's `notifications$` (they
 * carry `io.modelcontextprotocol/subscriptionId`); watchers filter them there.
 */
export class SubscriptionHub {
  /** Made on the first watch: an idle client keeps none. */
  private demandByKey: Map<string, number> | undefined;

  private get demand(): Map<string, number> {
    return (this.demandByKey ??= new Map());
  }
  private readonly events = new Subject<{ key: string; event: TopicEvent }>();
  private active: Stream | undefined;
  /** The stream opened last, until its acknowledgement arrives. */
  private opening: Stream | undefined;
  private scheduled = false;
  /** The wait before re-opening a stream that ended; cancelled when the connection closes. */
  private reopen: Subscription | undefined;
  private closed = false;
  /** Set when the server does not know `subscriptions/listen`: nothing is asked again. */
  private unsupported: unknown;

  constructor(private readonly deps: SubscriptionHubDeps) {
    deps.closed$.subscribe(() => this.shutdown());
    deps.notifications$
      .pipe(filter((message) => message.method === 'notifications/subscriptions/acknowledged'))
      .subscribe((message) => this.onAcknowledged(message));
  }

  /** The events of one topic while subscribed; completes when the connection closes. */
  watch(topic: ListenTopic): Observable<TopicEvent> {
    const key = keyOf(topic);
    return new Observable<TopicEvent>((subscriber) => {
      const inner = this.events
        .pipe(
          filter((entry) => entry.key === key),
          map((entry) => entry.event),
          takeUntil(this.deps.closed$),
        )
        .subscribe(subscriber);
      if (this.unsupported !== undefined) {
        subscriber.next({ kind: 'refused', error: this.unsupported });
        return inner;
      }
      this.demand.set(key, (this.demand.get(key) ?? 0) + 1);
      if (this.active?.acknowledged?.has(key)) subscriber.next({ kind: 'listening' });
      this.reconcile();
      return () => {
        inner.unsubscribe();
        const left = (this.demand.get(key) ?? 1) - 1;
        if (left > 0) this.demand.set(key, left);
        else this.demand.delete(key);
        this.reconcile();
      };
    });
  }

  /** Brings the streams in line with the demand, once per turn of the event loop. */
  private reconcile(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.apply();
    });
  }

  private apply(): void {
    // One stream opens at a time: its acknowledgement is then the first one after it was sent.
    if (this.closed || this.opening) return;
    const wanted = new Set(this.demand.keys());
    if (this.active && sameKeys(this.active.keys, wanted)) return;
    if (wanted.size === 0) {
      this.active?.subscription?.unsubscribe();
      this.active = undefined;
      return;
    }
    this.open(wanted);
  }

  private open(keys: ReadonlySet<string>): void {
    const stream: Stream = { keys };
    this.opening = stream;
    stream.subscription = this.deps.request('subscriptions/listen', { notifications: filterOf(keys) }).subscribe({
      // A result ends the subscription gracefully (Subscriptions → Graceful Closure).
      next: () => this.onEnded(stream, undefined),
      error: (error: unknown) => this.onEnded(stream, error),
    });
  }

  private onAcknowledged(message: JsonRpcNotification): void {
    const stream = this.opening;
    if (!stream) return;
    const params: MessageParams = message.params ?? {};
    this.deps.logger.debug({ subscriptionId: params._meta?.[META.subscriptionId] }, 'subscription acknowledged');
    const acknowledged = keysOf(params.notifications);
    stream.acknowledged = acknowledged;
    const before = this.active?.acknowledged ?? new Set<string>();
    this.active?.subscription?.unsubscribe();
    this.active = stream;
    this.opening = undefined;
    for (const key of stream.keys) {
      if (acknowledged.has(key) && !before.has(key)) this.events.next({ key, event: { kind: 'listening' } });
      else if (!acknowledged.has(key)) this.events.next({ key, event: { kind: 'refused' } });
    }
    this.reconcile();
  }

  private onEnded(stream: Stream, error: unknown): void {
    if (this.closed) return;
    const wasOpening = this.opening === stream;
    if (wasOpening) this.opening = undefined;
    if (this.active === stream) this.active = undefined;
    if (!wasOpening && stream.acknowledged === undefined) return;
    if (wasOpening && error !== undefined) {
      // The server will not listen (no such method, a refused filter): the watchers hear why.
      this.deps.logger.warn({ err: error }, 'subscriptions/listen failed');
      if (error instanceof JsonRpcError && error.code === ErrorCode.MethodNotFound) this.unsupported = error;
      for (const key of stream.keys) this.events.next({ key, event: { kind: 'refused', error } });
      return;
    }
    this.deps.logger.debug({ err: error }, 'subscription ended; opening it again');
    // A connection that closes fails its requests before it reports closing: the wait ends with it.
    this.reopen?.unsubscribe();
    this.reopen = this.deps.scheduler.schedule(() => {
      this.reopen = undefined;
      this.reconcile();
    }, REOPEN_DELAY_MS);
  }

  private shutdown(): void {
    this.closed = true;
    this.reopen?.unsubscribe();
    this.reopen = undefined;
    this.opening?.subscription?.unsubscribe();
    this.active?.subscription?.unsubscribe();
    this.events.complete();
  }
}
