/**
 * The operations side of a Streamable HTTP server: `/healthz`, `/readyz` and `/metrics`, and the
 * hooks through which the handler tells a {@link CallTracker} what each session received and sent.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallTracker } from '../../operations/call-tracker';
import { EXPOSITION_CONTENT_TYPE } from '../../operations/exposition';
import type { ServerOperations } from '../../operations/server-operations';
import type { CorsOptions } from '../http/cors';
import { endJson } from '../http/http-exchange';
import { guardHostAndOrigin, headerValue, refuse } from '../http/http-guards';
import type { OriginPolicy } from '../http/http-guards';
import { guardRequest } from '../http/request-auth';
import type { RequestAuthenticator } from '../http/request-auth';
import type { ModernExchange, ModernReceiver } from '../transport';
import type { StreamableHttpHandlerOptions } from './streamable-http/streamable-http-handler-options';
import type { StreamableHttpServerTransport } from './streamable-http/streamable-http-session';

/**
 * The handler's options with the tracker its server's `operations` follow calls with.
 * @internal `startStreamableHttpServer({ operations })` and the cluster pass it.
 */
export interface FollowedHandlerOptions extends StreamableHttpHandlerOptions {
  /** Told what each session receives and sends; none: nothing is followed. */
  readonly calls?: CallTracker | undefined;
}

/**
 * Serves the request when it is for one of the operations paths: Host and Origin are checked as
 * on the MCP endpoint, `/metrics` as its `metricsAccess` says. Returns whether it was one.
 */
export function serveOperations(
  operations: ServerOperations,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  policy: OriginPolicy & { readonly cors?: CorsOptions },
  auth: RequestAuthenticator | undefined,
): boolean {
  const { live, ready, metrics } = operations.paths;
  const path = url.pathname;
  if (path !== live && path !== ready && path !== metrics) return false;
  const refusal = guardHostAndOrigin(req, policy);
  if (refusal !== undefined) {
    refuse(res, refusal.status, `${refusal.status === 400 ? 'Bad Request' : 'Forbidden'}: ${refusal.reason}`);
    return true;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res
      .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' })
      .end(`Method Not Allowed: ${path} answers GET`);
    return true;
  }
  if (path === live) endJson(res, 200, '{"status":"ok"}', { 'cache-control': 'no-store' });
  else if (path === ready) {
    void operations.readiness().then((report) =>
      endJson(
        res,
        report.ready ? 200 : 503,
        JSON.stringify({ status: report.ready ? 'ready' : 'not ready', ...report }),
        {
          'cache-control': 'no-store',
        },
      ),
    );
  } else serveMetrics(operations, req, res, auth);
  return true;
}

/** `/metrics`, to whom `metricsAccess` lets read it. */
function serveMetrics(
  operations: ServerOperations,
  req: IncomingMessage,
  res: ServerResponse,
  auth: RequestAuthenticator | undefined,
): void {
  const write = () => {
    const text = operations.metrics!.render();
    res.writeHead(200, { 'content-type': EXPOSITION_CONTENT_TYPE, 'cache-control': 'no-store' }).end(text);
  };
  const access = operations.options.metricsAccess ?? 'auth';
  if (typeof access === 'object') {
    if (bearerMatches(headerValue(req, 'authorization'), access.bearerToken)) write();
    else {
      res.writeHead(401, { 'www-authenticate': 'Bearer realm="metrics"', 'content-type': 'text/plain' });
      res.end('Unauthorized: /metrics needs its bearer token');
    }
  } else if (access === 'auth' && auth !== undefined) guardRequest(auth, req, res, write);
  else write();
}

/** Whether `Authorization` carries `Bearer <token>`, compared in constant time. */
function bearerMatches(header: string | undefined, token: string): boolean {
  if (header === undefined || !/^bearer /i.test(header)) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(header.slice(7).trim()), digest(token));
}

/**
 * `onSession` with each session's transport followed: what it sends (a response ends its call) and
 * its closing (the calls it still held end). `send` is wrapped on the transport itself, before the
 * server sees it, so the object a server holds stays the one the handler keeps.
 */
export function followSessions(
  calls: CallTracker,
  onSession: (transport: StreamableHttpServerTransport) => void,
): (transport: StreamableHttpServerTransport) => void {
  return (transport) => {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      calls.sent(transport, message);
      send(message, options);
    };
    transport.closed$.subscribe(() => calls.closed(transport));
    onSession(transport);
  };
}

/** A modern receiver whose requests are followed from the POST to its response (or its cancelling). */
export function followModern(calls: CallTracker, receiver: ModernReceiver): ModernReceiver {
  return {
    serve(message, exchange) {
      const request = message as { id?: unknown; method?: unknown; params?: { name?: unknown } };
      if (typeof request.method !== 'string' || request.id === undefined) return receiver.serve(message, exchange);
      const call = calls.start(request.method, request.params);
      let open = true;
      const followed: ModernExchange = {
        headers: exchange.headers,
        auth: exchange.auth,
        notify: (notification) => exchange.notify(notification),
        respond: (response, httpStatus) => {
          if (open) calls.answered(call, response);
          open = false;
          exchange.respond(response, httpStatus);
        },
      };
      const cancel = receiver.serve(message, followed);
      return () => {
        if (open) calls.end(call, 'cancelled');
        open = false;
        cancel();
      };
    },
  };
}
