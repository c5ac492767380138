/**
 * The push streams of one client (design sketch: Push-Based Delivery): each `events/stream`
 * request's notifications carry its JSON-RPC id in `_meta["io.modelcontextprotocol/subscriptionId"]`.
 * The id a request went out with is not known to its caller, so streams open one at a time: the
 * first `notifications/events/active` naming an id no stream holds belongs to the stream opening.
 */
import { filter, Observable } from '../../rx/rxjs';
import type { Subscriber, Subscription } from '../../rx/rxjs';
import type { RequestId } from '../../jsonrpc/message';
import { EventMethod } from '../../schema/events';
import { META } from '../../schema/request-meta';
import type { MessageParams } from '../../schema/request-meta';
import type { McpClient } from '../client-api';

/** One notification of a push stream: its method and params. */
export interface PushMessage {
  readonly method: string;
  readonly params: MessageParams;
}

interface Opening {
  readonly params: Record<string, unknown>;
  readonly subscriber: Subscriber<PushMessage>;
  request?: Subscription;
}

/** A stream's `events/stream` request: it lasts as long as anyone follows, so no timeout. */
const STREAM_OPTIONS = { timeoutMs: Infinity };

class PushRouter {
  private readonly routes = new Map<RequestId, Subscriber<PushMessage>>();
  private readonly queue: Opening[] = [];
  private current: Opening | undefined;

  constructor(private readonly client: McpClient) {
    client.connection.notifications$
      .pipe(filter((message) => message.method.startsWith('notifications/events/')))
      .subscribe((message) => this.route({ method: message.method, params: message.params ?? {} }));
  }

  /**
   * Opens one stream: cold; emits its notifications from `notifications/events/active` on,
   * completes when the server ends the stream, errors as its request does. Unsubscribing cancels
   * the request.
   */
  open(params: Record<string, unknown>): Observable<PushMessage> {
    return new Observable<PushMessage>((subscriber) => {
      const opening: Opening = { params, subscriber };
      let id: RequestId | undefined;
      this.queue.push(opening);
      this.next();
      subscriber.add(() => {
        const queued = this.queue.indexOf(opening);
        if (queued >= 0) this.queue.splice(queued, 1);
        for (const [key, route] of this.routes) if (route === subscriber) id = key;
        if (id !== undefined) this.routes.delete(id);
        opening.request?.unsubscribe();
        if (this.current === opening) {
          this.current = undefined;
          this.next();
        }
      });
    });
  }

  private next(): void {
    if (this.current !== undefined) return;
    const opening = this.queue.shift();
    if (opening === undefined) return;
    this.current = opening;
    opening.request = this.client.request(EventMethod.Stream, opening.params, STREAM_OPTIONS).subscribe({
      next: () => opening.subscriber.complete(),
      error: (error: unknown) => opening.subscriber.error(error),
    });
  }

  private route(message: PushMessage): void {
    const id: unknown = message.params._meta?.[META.subscriptionId];
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const route = this.routes.get(id);
    if (route) {
      route.next(message);
      return;
    }
    const opening = this.current;
    if (message.method !== EventMethod.Active || opening === undefined) return;
    this.routes.set(id, opening.subscriber);
    this.current = undefined;
    opening.subscriber.next(message);
    this.next();
  }
}

const routers = new WeakMap<McpClient, PushRouter>();

/** The push streams of `client`, made on first use. */
export function pushRouterOf(client: McpClient): PushRouter {
  let router = routers.get(client);
  if (!router) routers.set(client, (router = new PushRouter(client)));
  return router;
}

export type { PushRouter };
