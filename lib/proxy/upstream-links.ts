import type { Logger } from 'pino';
import {
  BehaviorSubject,
  catchError,
  defer,
  EMPTY,
  from,
  Observable,
  switchMap,
  take,
  tap,
  throwError,
} from '../rx/rxjs';
import type { ObservableInput, Subscription } from '../rx/rxjs';
import type { RequestContext } from '../connection/dispatcher';
import { ConnectionClosedError, ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { McpClient } from '../client/client-api';
import type { Transport } from '../transport/transport';
import type { DownstreamSession, Front } from './front';
import { tellRootsChanged } from './forward';
import { watchUpstream } from './proxy';
import { reconnecting } from './reconnect';
import type { ReconnectEvent, UpstreamReconnectOptions } from './reconnect';
import { SubscriptionRelay } from './subscription-relay';
import type { UpstreamConnectFunction } from './upstream-source';

/** Where an upstream's list changes and log messages go: every downstream client, or one. */
export type UpstreamSink = Pick<Front, 'broadcast' | 'log'>;

/** One live connection to an upstream, with what follows it. */
export interface Link {
  readonly client: McpClient;
  readonly relay: SubscriptionRelay;
}

/** What the links of one upstream need from the aggregate. */
export interface LinkSetup {
  readonly key: string;
  readonly logger: Logger;
  readonly front: Front;
  /** The URI downstream of an upstream URI. */
  readonly downstreamUri: (uri: string) => string;
  /** A log message of the upstream as downstream clients see it. */
  readonly renameLog: (message: Record<string, unknown>) => Record<string, unknown>;
  /** The transport of a downstream session, for what it knows of the client. */
  readonly transportOf: (session: DownstreamSession) => Transport | undefined;
}

/** The connections of one upstream: one shared, or one per downstream session. */
export interface UpstreamLinks {
  /** Runs `work` on the connection that serves `owner`, connecting first where that is how it works. */
  use<T>(
    owner: DownstreamSession | undefined,
    context: RequestContext | undefined,
    work: (link: Link) => Observable<T>,
  ): Observable<T>;
  /** Subscribes `owner` to the upstream's resource `uri`; emits `{}` once the upstream subscription holds. */
  subscribe(
    owner: DownstreamSession | undefined,
    context: RequestContext,
    uri: string,
  ): Observable<Record<string, unknown>>;
  /** Ends `owner`'s subscription to `uri`; never connects to do so. */
  unsubscribe(owner: DownstreamSession | undefined, uri: string): void;
  /** Whether the upstream serves now without connecting first (a per-session one always may). */
  readonly available: boolean;
  /** What the upstream declared when last connected; undefined before it ever was. */
  readonly capabilities: Record<string, unknown> | undefined;
  /** `session` said its roots changed: tell the upstream connection that may ask it for them. */
  rootsChanged(session: DownstreamSession): void;
  sessionClosed(session: DownstreamSession): void;
  close(): void;
}

// The events one reaches only the clients told of events (see `mayTell`).
const LIST_CHANGES = ['tools', 'prompts', 'resources', 'events'].map((list) => `notifications/${list}/list_changed`);

/** Tells `sink` that every list may have changed: the upstream's entries came or went. */
export function listsChanged(sink: UpstreamSink): void {
  for (const method of LIST_CHANGES) sink.broadcast(method);
}

export interface OpenLink extends Link {
  dispose(): void;
}

export function openLink(client: McpClient, sink: UpstreamSink, setup: LinkSetup): OpenLink {
  const relay = new SubscriptionRelay(client, setup.logger, setup.downstreamUri);
  const watching = watchUpstream(client, sink, setup.renameLog);
  return {
    client,
    relay,
    dispose: () => {
      watching.unsubscribe();
      relay.close();
    },
  };
}

/**
 * The connection a connector makes, as an Observable. Unsubscribing before it arrives does not
 * lose it: it is closed on arrival (a connection nobody holds would stay open for good).
 */
export function connection(open: () => PromiseLike<McpClient> | ObservableInput<McpClient>): Observable<McpClient> {
  return new Observable<McpClient>((subscriber) => {
    defer(() => from(open() as ObservableInput<McpClient>))
      .pipe(take(1))
      .subscribe({
        next: (client) => {
          if (subscriber.closed) client.close('abandoned: the aggregate no longer needs it');
          else subscriber.next(client);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
  });
}

/** The JSON-RPC error of a request that needs an upstream that is not connected. */
export function unavailable(key: string, why: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.ConnectionClosed, `Upstream "${key}" is unavailable: ${why}`, { upstream: key });
}

/**
 * Turns the upstream connection closing under a request (the upstream restarted, removed by a
 * reload, or gone) into an error that names the upstream and says the request may have run: the
 * caller decides whether to send it again. Other errors pass as they are.
 */
export function closedUnder<T>(key: string): (source: Observable<T>) => Observable<T> {
  return catchError((error: unknown) =>
    throwError(() =>
      error instanceof ConnectionClosedError
        ? new JsonRpcError(
            ErrorCode.ConnectionClosed,
            `Upstream "${key}" went away while the request was in flight; it may have run: ${error.reason}`,
            { upstream: key },
          )
        : error,
    ),
  );
}

/** One connection for every downstream client: a client given ready, or one a connector keeps up. */
export class SharedLinks implements UpstreamLinks {
  private link: OpenLink | undefined;
  private status = 'connecting';
  private known: Record<string, unknown> | undefined;
  private readonly following: Subscription;
  private readonly owned: boolean;
  /** Downstream subscriptions by upstream URI, kept through a reconnection. */
  private readonly wanted = new Map<string, Set<DownstreamSession>>();
  /** The live connection as it comes and goes (undefined while there is none). */
  private readonly links = new BehaviorSubject<Link | undefined>(undefined);

  constructor(
    private readonly setup: LinkSetup,
    source: { readonly client: McpClient } | { readonly connect: UpstreamConnectFunction },
    reconnect: UpstreamReconnectOptions | false,
  ) {
    this.owned = !('client' in source);
    if ('client' in source) {
      this.connected(source.client);
      this.following = source.client.closed$.subscribe(() => this.lost('its connection closed'));
      return;
    }
    const connect = (attempt: number) => connection(() => source.connect({ upstream: setup.key, attempt }));
    const options = reconnect === false ? { maxAttempts: 0 } : reconnect;
    this.following = reconnecting(connect, (client: McpClient) => client.closed$, options).subscribe((event) =>
      this.step(event),
    );
  }

  get available(): boolean {
    return this.link !== undefined && this.link.client.state !== 'shutdown';
  }

  get capabilities(): Record<string, unknown> | undefined {
    return this.known;
  }

  use<T>(_owner: unknown, _context: unknown, work: (link: Link) => Observable<T>): Observable<T> {
    const link = this.link;
    if (!link || link.client.state === 'shutdown')
      return throwError(() => unavailable(this.setup.key, this.link ? 'its connection closed' : this.status));
    return work(link).pipe(closedUnder(this.setup.key));
  }

  subscribe(
    owner: DownstreamSession | undefined,
    context: RequestContext,
    uri: string,
  ): Observable<Record<string, unknown>> {
    return this.use(owner, context, (link) =>
      link.relay.add(owner, uri).pipe(
        tap(() => {
          if (owner === undefined) return;
          const subscribers = this.wanted.get(uri) ?? new Set();
          this.wanted.set(uri, subscribers.add(owner));
        }),
      ),
    );
  }

  /**
   * The updates of the upstream resource `uri` for a `subscriptions/listen` stream, followed
   * across reconnections: coming back counts as an update (the resource may have changed meanwhile).
   */
  updates(uri: string): Observable<void> {
    return defer(() => {
      let before = false;
      return this.links.pipe(
        switchMap((link) => {
          if (!link) return EMPTY;
          const again = before;
          before = true;
          return new Observable<void>((subscriber) => {
            if (again) subscriber.next();
            return link.relay.updates(uri).subscribe(subscriber);
          });
        }),
      );
    });
  }

  unsubscribe(owner: DownstreamSession | undefined, uri: string): void {
    const subscribers = this.wanted.get(uri);
    if (owner !== undefined && subscribers?.delete(owner) && subscribers.size === 0) this.wanted.delete(uri);
    this.link?.relay.remove(owner, uri);
  }

  rootsChanged(): void {
    if (this.link) tellRootsChanged(this.link.client);
  }

  sessionClosed(session: DownstreamSession): void {
    for (const uri of [...this.wanted.keys()]) this.unsubscribe(session, uri);
    this.link?.relay.dropAll(session);
  }

  close(): void {
    this.following.unsubscribe();
    const link = this.link;
    this.link = undefined;
    this.links.complete();
    link?.dispose();
    // A client the aggregate opened is the aggregate's to close; one it was given is the caller's.
    if (link && this.owned) link.client.close('aggregate closed');
  }

  private step(event: ReconnectEvent<McpClient>): void {
    const { logger, key } = this.setup;
    if (event.type === 'connected') {
      logger.info({ upstream: key, attempt: event.attempt }, 'upstream connected');
      this.connected(event.value);
    } else if (event.type === 'retrying') {
      logger.warn(
        { upstream: key, err: event.error, attempt: event.attempt, delayMs: event.delayMs },
        'upstream retry',
      );
      const why = event.reason === 'closed' ? 'its connection closed' : 'connecting failed';
      this.lost(`${why}; reconnecting (attempt ${event.attempt} in ${Math.round(event.delayMs)} ms)`);
    } else {
      logger.error({ upstream: key, err: event.error, attempts: event.attempts }, 'upstream given up');
      this.lost(`gave up reconnecting after ${event.attempts} attempts`);
    }
  }

  private connected(client: McpClient): void {
    this.link?.dispose();
    const link = (this.link = openLink(client, this.setup.front, this.setup));
    this.known = client.serverCapabilities as Record<string, unknown>;
    this.status = 'connected';
    listsChanged(this.setup.front);
    this.resubscribe(link);
    this.links.next(link);
  }

  /**
   * After a reconnection, subscribes again upstream for the downstream subscribers who were there
   * before, and tells each that its resource may have changed meanwhile.
   */
  private resubscribe(link: Link): void {
    const { logger, key, downstreamUri } = this.setup;
    for (const [uri, subscribers] of this.wanted)
      for (const subscriber of subscribers)
        link.relay.add(subscriber, uri).subscribe({
          next: () => {
            if (subscriber.connection.state === 'operating')
              subscriber.connection.notify('notifications/resources/updated', { uri: downstreamUri(uri) });
          },
          error: (error: unknown) => logger.warn({ upstream: key, uri, err: error }, 'resubscription failed'),
        });
  }

  private lost(why: string): void {
    this.status = why;
    const link = this.link;
    this.link = undefined;
    if (!link) return;
    this.setup.logger.warn({ upstream: this.setup.key }, 'upstream closed; its entries leave the lists');
    this.links.next(undefined);
    link.dispose();
    listsChanged(this.setup.front);
  }
}
