/**
 * The client's end of webhook delivery (design sketch: Webhook-Based Delivery): an HTTP handler
 * that takes the server's posts, checks each against the secrets of the subscriptions that follow
 * through it (Standard Webhooks, as `verifyWebhookSignature` does), and hands the verified body to
 * the subscription it belongs to. Mount it where the subscriptions' `url` points.
 */
import { verifyWebhookSignature } from '../../schema/webhook-signature';

/** What the receiver reads of a request: Node's `IncomingMessage` is one. */
export interface WebhookRequest {
  readonly method?: string | undefined;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Hears a piece of the body. */
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  /** Hears the end of the body. */
  on(event: 'end', listener: () => void): unknown;
  /** Hears the request fail. */
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** The head a receiver's answer was given, which it then ends. */
export interface WebhookAnswer {
  /** Ends the answer, which has no body. */
  end(): unknown;
}

/** What the receiver does with a response: Node's `ServerResponse` is one. */
export interface WebhookResponse {
  /** Sends the status of the answer. */
  writeHead(status: number): WebhookAnswer;
  /** Drops the connection (the request failed while it was read). */
  destroy(): unknown;
}

/** Options of {@link createWebhookReceiver}. */
export interface WebhookReceiverOptions {
  /** The largest body taken, in bytes; a larger post is answered 413 (not retried). Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** The clock a post's timestamp is checked against (five minutes either way). Default `Date.now`. */
  readonly now?: () => number;
}

/** Where a server's webhook posts arrive; give it to `eventsClient(...).follow` with `delivery: 'webhook'`. */
export interface WebhookReceiver {
  /**
   * Serves one request from the server: 204 when its signature verifies with a subscription's
   * secret (the body then goes to that subscription), 401 when none does, 405 for a method other
   * than POST, 413 past `maxBodyBytes`, 400 for a body that is not JSON.
   */
  handle(req: WebhookRequest, res: WebhookResponse): void;
}

/** A subscription following through a receiver: its secrets, its id once known, where its bodies go. */
export interface WebhookRoute {
  /** The secrets that may sign its posts, newest first. */
  readonly secrets: readonly string[];
  /** The subscription id the server gave (`X-MCP-Subscription-Id`); undefined until it answered. */
  readonly id: string | undefined;
  deliver(body: unknown): void;
}

const routesOf = new WeakMap<WebhookReceiver, Set<WebhookRoute>>();

/**
 * Makes `route` take the posts of `receiver` that its secrets verify; returns what stops that.
 * For the follower of a webhook subscription.
 */
export function routeWebhooks(receiver: WebhookReceiver, route: WebhookRoute): () => void {
  const routes = routesOf.get(receiver);
  if (routes === undefined) throw new TypeError('not a receiver made by createWebhookReceiver');
  routes.add(route);
  return () => void routes.delete(route);
}

/**
 * A receiver for the webhook posts of the subscriptions that follow through it.
 * @example
 * const receiver = createWebhookReceiver();
 * createServer((req, res) => receiver.handle(req, res)).listen(8443);
 * eventsClient(client)
 *   .follow('incident.created', {}, { delivery: 'webhook', webhook: { receiver, url: 'https://agent.example/hooks' } })
 *   .subscribe((occurrence) => wakeTheAgent(occurrence.data));
 */
export function createWebhookReceiver(options: WebhookReceiverOptions = {}): WebhookReceiver {
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const now = options.now ?? Date.now;
  const routes = new Set<WebhookRoute>();
  const answer = (res: WebhookResponse, status: number): void => void res.writeHead(status).end();
  // The signature covers the raw bytes, checked before they are read as JSON.
  const receive = (req: WebhookRequest, res: WebhookResponse, body: Uint8Array): void => {
    const id = req.headers['x-mcp-subscription-id'];
    // The subscription the post names, or one that has not learnt its id yet (a post may come first).
    const candidates = [...routes].filter((route) => route.id === undefined || route.id === id);
    const route = candidates.find(
      (candidate) =>
        verifyWebhookSignature({ secret: candidate.secrets, headers: req.headers, body, nowMs: now() }).valid,
    );
    if (route === undefined) return answer(res, 401);
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(body));
    } catch {
      return answer(res, 400);
    }
    answer(res, 204);
    route.deliver(parsed);
  };
  const receiver: WebhookReceiver = {
    handle(req, res) {
      if (req.method !== 'POST') return answer(res, 405);
      const chunks: Uint8Array[] = [];
      let size = 0;
      req.on('data', (chunk) => {
        if (size > maxBodyBytes) return;
        size += chunk.length;
        if (size <= maxBodyBytes) chunks.push(chunk);
        // Answered at once: what follows is not kept.
        else answer(res, 413);
      });
      req.on('end', () => {
        if (size > maxBodyBytes) return;
        const body = new Uint8Array(size);
        let at = 0;
        for (const chunk of chunks) body.set(chunk, (at += chunk.length) - chunk.length);
        receive(req, res, body);
      });
      req.on('error', () => res.destroy());
    },
  };
  routesOf.set(receiver, routes);
  return receiver;
}
