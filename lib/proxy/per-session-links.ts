import { defer, finalize, firstValueFrom, Observable } from '../rx/rxjs';
import type { Subscription } from '../rx/rxjs';
import type { RequestContext } from '../connection/dispatcher';
import { LOG_LEVELS } from '../connection/handler-events';
import type { McpClient } from '../client/client-api';
import type { DownstreamSession } from './front';
import { tellRootsChanged } from './forward';
import { closedUnder, connection, listsChanged, openLink, unavailable } from './upstream-links';
import { mayTell } from './event-declarations';
import type { Link, LinkSetup, OpenLink, UpstreamLinks, UpstreamSink } from './upstream-links';
import { downstreamInfo } from './upstream-source';
import type { UpstreamConnectFunction } from './upstream-source';

/** `client`, with each request sent through it counted from subscription to end. */
function countingRequests(client: McpClient, start: () => void, end: () => void): McpClient {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'request')
        return (...args: Parameters<McpClient['request']>) =>
          defer(() => {
            start();
            return target.request(...args).pipe(finalize(end));
          });
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const levelRank = new Map<string, number>(LOG_LEVELS.map((level, index) => [level, index]));

/** One downstream session as the sink of its own upstream connection. */
function sessionSink(session: DownstreamSession): UpstreamSink {
  return {
    broadcast: (method) => {
      if (session.connection.state === 'operating' && mayTell(session.connection, method))
        session.connection.notify(method);
    },
    log: (message) => {
      const rank = levelRank.get(message.level) ?? 0;
      if (session.connection.state === 'operating' && rank >= levelRank.get(session.level)!)
        session.connection.notify('notifications/message', message);
    },
  };
}

/**
 * One connection per downstream session, made on its first request that needs the upstream and
 * closed when the session closes; a modern request (no session) gets one of its own for its
 * length. A connection that fails or closes is forgotten: the session's next request connects again.
 */
export class PerSessionLinks implements UpstreamLinks {
  private readonly bySession = new Map<DownstreamSession, Promise<OpenLink>>();
  private known: Record<string, unknown> | undefined;

  constructor(
    private readonly setup: LinkSetup,
    private readonly connect: UpstreamConnectFunction,
  ) {}

  readonly available = true;

  get capabilities(): Record<string, unknown> | undefined {
    return this.known;
  }

  use<T>(
    owner: DownstreamSession | undefined,
    context: RequestContext | undefined,
    work: (link: Link) => Observable<T>,
  ): Observable<T> {
    return new Observable<T>((subscriber) => {
      let inner: Subscription | undefined;
      let done = false;
      const own = owner === undefined ? this.open(undefined, context) : undefined;
      const ready = own ?? this.linkOf(owner!, context);
      // A modern caller's own connection lasts while its request runs, and while an upstream
      // request made for it still does: a call parked between the caller's rounds (see the router).
      let running = 0;
      const releaseIfIdle = () => {
        if (own && done && running === 0)
          void own.then(
            (link) => this.release(link),
            () => undefined,
          );
      };
      ready.then(
        (link) => {
          if (done) return;
          const client = own
            ? countingRequests(
                link.client,
                () => running++,
                () => {
                  running--;
                  releaseIfIdle();
                },
              )
            : link.client;
          inner = work({ client, relay: link.relay }).pipe(closedUnder(this.setup.key)).subscribe(subscriber);
        },
        (error: unknown) => subscriber.error(error),
      );
      return () => {
        done = true;
        inner?.unsubscribe();
        releaseIfIdle();
      };
    });
  }

  subscribe(
    owner: DownstreamSession | undefined,
    context: RequestContext,
    uri: string,
  ): Observable<Record<string, unknown>> {
    return this.use(owner, context, (link) => link.relay.add(owner, uri));
  }

  unsubscribe(owner: DownstreamSession | undefined, uri: string): void {
    void this.bySession.get(owner!)?.then(
      (link) => link.relay.remove(owner, uri),
      () => undefined,
    );
  }

  rootsChanged(session: DownstreamSession): void {
    void this.bySession.get(session)?.then(
      (link) => tellRootsChanged(link.client),
      () => undefined,
    );
  }

  sessionClosed(session: DownstreamSession): void {
    const pending = this.bySession.get(session);
    this.bySession.delete(session);
    pending?.then(
      (link) => this.release(link),
      () => undefined,
    );
  }

  close(): void {
    for (const session of [...this.bySession.keys()]) this.sessionClosed(session);
  }

  private linkOf(session: DownstreamSession, context: RequestContext | undefined): Promise<OpenLink> {
    let pending = this.bySession.get(session);
    if (!pending) {
      pending = this.open(session, context);
      this.bySession.set(session, pending);
      const forget = () => {
        if (this.bySession.get(session) === pending) this.bySession.delete(session);
      };
      pending.then((link) => {
        if (session.connection.state === 'shutdown') return this.sessionClosed(session);
        link.client.closed$.subscribe(() => {
          forget();
          link.dispose();
          listsChanged(sessionSink(session));
        });
      }, forget);
    }
    return pending;
  }

  private async open(session: DownstreamSession | undefined, context: RequestContext | undefined): Promise<OpenLink> {
    const { key, logger } = this.setup;
    let client: McpClient;
    try {
      const downstream = downstreamInfo(session && this.setup.transportOf(session), context, session?.connection);
      client = await firstValueFrom(connection(() => this.connect({ upstream: key, attempt: 0, downstream })));
    } catch (error) {
      logger.warn({ upstream: key, err: error }, 'per-session upstream connection failed');
      throw unavailable(key, 'connecting failed');
    }
    this.known = client.serverCapabilities as Record<string, unknown>;
    const sink = session ? sessionSink(session) : { broadcast: () => undefined, log: () => undefined };
    return openLink(client, sink, this.setup);
  }

  private release(link: OpenLink): void {
    link.dispose();
    link.client.close('downstream session closed');
  }
}
