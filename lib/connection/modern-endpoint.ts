import { asyncScheduler, throwError } from '../rx/rxjs';
import type { Observable, SchedulerLike } from '../rx/rxjs';
import type { Logger } from 'pino';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { childLogger } from '../base/logger';
import type { LoggerOption } from '../base/logger';
import { errorResponse, notification, resultResponse } from '../jsonrpc/message';
import type { JsonRpcMessage, JsonRpcRequest } from '../jsonrpc/message';
import type { ModernExchange, ModernReceiver } from '../transport/transport';
import { Dispatcher } from './dispatcher';
import type { Answer, DispatcherSink, RequestHandler } from './dispatcher';
import type { LogLevel } from './handler-events';
import { LifecycleRunner } from './lifecycle-runner';
import { serverLifecycleMachine } from './lifecycle-machines';
import type { ServerLifecycleMachine } from './lifecycle-machines';
import { admitModernRequest, decorateModernResult, discoverResult, isRefusal, MODERN_REVISIONS } from './modern';
import type { CacheHint, ResultDecoration, ModernPolicy } from './modern';
import { PARTIAL_RESULT_METHOD } from './partial-results';
import { unencodableAnswer } from './unencodable';

/** A partial result may be missed: a slow reader's exchange skips it (SEP-2998: the result is the whole answer). */
const DROPPABLE = { droppable: true } as const;

/** Options of {@link ModernEndpoint}. */
export interface ModernEndpointOptions {
  /** Our name and version, put in every result's `_meta`. */
  readonly info: { readonly name: string; readonly version: string } & Record<string, unknown>;
  readonly instructions?: string;
  /** Our capabilities, read per request. */
  readonly capabilities: () => Record<string, unknown>;
  /** Request handlers by method; read, never copied. */
  readonly handlers: Readonly<Record<string, RequestHandler>>;
  /** What the handlers are given as their `owner` (a connection's is its session; here there is none). */
  readonly owner?: unknown;
  /** Every revision the server speaks, oldest first; only the modern ones are served here. */
  readonly supportedRevisions: readonly string[];
  readonly cacheHints?: Readonly<Record<string, CacheHint>>;
  readonly logger?: LoggerOption;
  readonly scheduler?: SchedulerLike;
}

/**
 * The sink of one exchange: what a handler sends about its request goes to the exchange.
 * Modern revisions have no server-to-client requests (they ask through input-required results).
 */
class ExchangeSink implements DispatcherSink {
  constructor(private readonly exchange: ModernExchange) {}

  notifyFor(method: string, params: Record<string, unknown>): void {
    this.exchange.notify(notification(method, params), method === PARTIAL_RESULT_METHOD ? DROPPABLE : undefined);
  }

  logFor(level: LogLevel, data: unknown, logger: string | undefined): void {
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.exchange.notify(notification('notifications/message', params));
  }

  requestFor(method: string): Observable<Record<string, unknown>> {
    return throwError(
      () =>
        new Error(`Cannot send ${method}: a modern request asks its client through an input-required result instead`),
    );
  }
}

const NOTHING = (): void => undefined;

/**
 * Serves the requests of the modern revisions (2026-07-28 on) one by one, with no connection and
 * no session: each request is admitted on its own `_meta`, handled by the server's shared handlers,
 * and answered with `resultType`, the server's identity and caching hints. The Streamable HTTP
 * handler gives it each such POST. One lifecycle describes the endpoint: it starts in the server
 * lifecycle's `modern` state and ends with `close()`, after which requests are refused.
 */
export class ModernEndpoint implements ModernReceiver {
  private readonly log: Logger;
  private readonly lifecycle: LifecycleRunner<ServerLifecycleMachine>;
  private readonly policy: ModernPolicy;
  private readonly decoration: ResultDecoration;
  private readonly inflight = new Set<Dispatcher>();

  constructor(private readonly options: ModernEndpointOptions) {
    this.log = childLogger(options.logger, { component: 'modern-endpoint' });
    this.lifecycle = new LifecycleRunner(
      serverLifecycleMachine(),
      { supported: options.supportedRevisions, initializeTimeoutMs: Infinity },
      options.scheduler ?? asyncScheduler,
      () => undefined,
    );
    this.lifecycle.send({ type: 'peer.modernRequest', protocolVersion: MODERN_REVISIONS.at(-1)! });
    this.policy = {
      supported: options.supportedRevisions,
      capabilities: options.capabilities,
      serves: (method) => Object.hasOwn(options.handlers, method),
    };
    this.decoration = { serverInfo: options.info, cacheHints: options.cacheHints };
  }

  /** Requests being handled now. */
  get size(): number {
    return this.inflight.size;
  }

  serve(message: JsonRpcMessage, exchange: ModernExchange): () => void {
    if (!('method' in message) || !('id' in message)) return NOTHING; // notifications and responses: nothing to answer
    const request = message as JsonRpcRequest;
    if (!this.lifecycle.snapshot.hasTag('accepts-modern-requests')) {
      exchange.respond(
        errorResponse(request.id, { code: ErrorCode.ConnectionClosed, message: 'Server is shutting down' }),
        503,
      );
      return NOTHING;
    }
    const outcome = admitModernRequest(request, this.policy, exchange);
    if (isRefusal(outcome)) {
      this.log.warn({ id: request.id, method: request.method, code: outcome.error.code }, 'modern request refused');
      exchange.respond(errorResponse(request.id, outcome.error.toJSON()), outcome.httpStatus);
      return NOTHING;
    }
    const { method } = request;
    if (method === 'server/discover') {
      exchange.respond(
        resultResponse(
          request.id,
          decorateModernResult(
            method,
            discoverResult(this.options.supportedRevisions, this.options.capabilities(), this.options.instructions),
            this.decoration,
          ),
        ),
      );
      return NOTHING;
    }
    const handler = Object.hasOwn(this.options.handlers, method) ? this.options.handlers[method] : undefined;
    if (!handler) {
      exchange.respond(errorResponse(request.id, JsonRpcError.methodNotFound(method).toJSON()), 404);
      return NOTHING;
    }
    const dispatcher = new Dispatcher(new ExchangeSink(exchange), this.log);
    this.inflight.add(dispatcher);
    dispatcher.dispatch(
      request,
      outcome.params,
      handler,
      outcome.peer.revision,
      this.options.owner,
      (answer: Answer) => {
        this.inflight.delete(dispatcher);
        if (answer === null) return;
        const response =
          'error' in answer
            ? errorResponse(request.id, answer.error)
            : resultResponse(request.id, decorateModernResult(method, answer.result, this.decoration));
        try {
          exchange.respond(response);
        } catch (error) {
          // One JSON cannot write (see unencodable.ts): the exchange sent nothing yet.
          exchange.respond(unencodableAnswer(response, error));
        }
      },
      outcome.peer,
    );
    return () => {
      if (this.inflight.delete(dispatcher)) dispatcher.cancelAll('the client went away');
    };
  }

  /** Cancels every request in flight and refuses later ones. Idempotent. */
  close(reason = 'server closed'): void {
    this.lifecycle.send({ type: 'local.close', reason });
    const inflight = [...this.inflight];
    this.inflight.clear();
    for (const dispatcher of inflight) dispatcher.cancelAll(reason);
  }
}
