/**
 * What the server and client tracing middlewares share: `@opentelemetry/api`, an optional peer
 * dependency loaded on first use only (loading rxmcp never loads it), the trace context carried in
 * `params._meta` (spec 2026-07-28: Basic → `_meta`, OpenTelemetry trace context: the keys
 * `traceparent`, `tracestate` and `baggage`), and the span names and attributes of the
 * OpenTelemetry semantic conventions for MCP.
 */
import type * as OpenTelemetry from '@opentelemetry/api';
import { Observable } from '../rx/rxjs';
import { JsonRpcError } from '../jsonrpc/errors';
import { isResultEvent, RequestSent } from './middleware';
import type { MiddlewareEvent, MiddlewareRequest } from './middleware';
import { targetOf } from './middleware-kit';
import { formatTraceparent, parseTraceparent, TRACEPARENT, TRACESTATE, validTracestate } from './trace-context';
import { TracingUnavailableError } from './tracing-options';
import type { TracingOptions } from './tracing-options';

export { TracingUnavailableError } from './tracing-options';
export type { TracingOptions } from './tracing-options';

export type OpenTelemetryApi = typeof OpenTelemetry;

let loaded: OpenTelemetryApi | undefined;

/** The `@opentelemetry/api` module; throws `TracingUnavailableError` when it is not installed. */
export function openTelemetryApi(): OpenTelemetryApi {
  if (loaded !== undefined) return loaded;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = require('@opentelemetry/api') as OpenTelemetryApi;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'MODULE_NOT_FOUND') throw new TracingUnavailableError({ cause: error });
    throw error;
  }
  return loaded;
}

/**
 * What a tracing middleware works with: the API, its tracer, the propagator given (undefined: the
 * global one, else the built-in W3C codec), and the `network.transport` the options name.
 */
export interface Tracing {
  readonly api: OpenTelemetryApi;
  readonly tracer: OpenTelemetry.Tracer;
  readonly propagator: OpenTelemetry.TextMapPropagator | undefined;
  readonly networkTransport: string | undefined;
}

/**
 * Loads `@opentelemetry/api` (throwing `TracingUnavailableError` without it) and makes the tracer
 * of the options' provider, else the global one. The options' structural types are the API's own.
 */
export function startTracing(options: TracingOptions): Tracing {
  const api = openTelemetryApi();
  const provider =
    (options.tracerProvider as OpenTelemetry.TracerProvider | undefined) ?? api.trace.getTracerProvider();
  return {
    api,
    tracer: provider.getTracer(TRACER_NAME),
    propagator: options.propagator as OpenTelemetry.TextMapPropagator | undefined,
    networkTransport: options.networkTransport,
  };
}

/**
 * Whether a global propagator is registered: the API's no-op one, there until `setGlobalPropagator`
 * (or an SDK) registers another, names no fields. Asked per request, so that a propagator
 * registered after the middleware was made is used.
 */
function hasGlobalPropagator(api: OpenTelemetryApi): boolean {
  return api.propagation.fields().length > 0;
}

/**
 * Writes the trace context of `active` into `carrier` (a request's `_meta`): with the propagator
 * given, else the global one, else (none registered) as W3C `traceparent` and `tracestate`, so that
 * a call is one trace without any propagator set up.
 */
export function injectTraceContext(
  tracing: Tracing,
  active: OpenTelemetry.Context,
  carrier: Record<string, string>,
): void {
  const { api, propagator } = tracing;
  if (propagator) propagator.inject(active, carrier, api.defaultTextMapSetter);
  else if (hasGlobalPropagator(api)) api.propagation.inject(active, carrier);
  else injectW3c(api, active, carrier);
}

/**
 * Reads the trace context a peer sent in `carrier` (a request's `_meta`) into `parent`: with the
 * propagator given, else the global one, else the built-in W3C codec. Invalid values are ignored:
 * the context stays `parent`, and the span made under it starts a trace of its own.
 */
export function extractTraceContext(
  tracing: Tracing,
  parent: OpenTelemetry.Context,
  carrier: Record<string, unknown>,
): OpenTelemetry.Context {
  const { api, propagator } = tracing;
  if (propagator) return propagator.extract(parent, carrier, metaGetter);
  if (hasGlobalPropagator(api)) return api.propagation.extract(parent, carrier, metaGetter);
  return extractW3c(api, parent, carrier);
}

function injectW3c(api: OpenTelemetryApi, active: OpenTelemetry.Context, carrier: Record<string, string>): void {
  const spanContext = api.trace.getSpanContext(active);
  if (spanContext === undefined || !api.isSpanContextValid(spanContext)) return;
  const traceparent = formatTraceparent(spanContext);
  if (traceparent === undefined) return;
  carrier[TRACEPARENT] = traceparent;
  const tracestate = spanContext.traceState?.serialize();
  if (tracestate) carrier[TRACESTATE] = tracestate;
}

function extractW3c(
  api: OpenTelemetryApi,
  parent: OpenTelemetry.Context,
  carrier: Record<string, unknown>,
): OpenTelemetry.Context {
  const traceparent = parseTraceparent(metaGetter.get(carrier, TRACEPARENT));
  if (traceparent === undefined) return parent;
  const tracestate = validTracestate(metaGetter.get(carrier, TRACESTATE));
  return api.trace.setSpanContext(parent, {
    ...traceparent,
    isRemote: true,
    ...(tracestate === undefined ? {} : { traceState: api.createTraceState(tracestate) }),
  });
}

/** The name of every rxmcp tracer. */
export const TRACER_NAME = 'rxmcp';

/** Reads the trace context from a request's `_meta`: only string values, whatever a peer sent. */
export const metaGetter: OpenTelemetry.TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = Object.hasOwn(carrier, key) ? carrier[key] : undefined;
    return typeof value === 'string' ? value : undefined;
  },
};

/** `{mcp.method.name} {target}`, the target being the tool or prompt (low cardinality, per the conventions). */
export function spanNameOf(request: MiddlewareRequest): string {
  const target = targetOf(request);
  return target === undefined ? request.method : `${request.method} ${target}`;
}

/** The attributes the conventions give a request's span, from its method and params. */
export function requestAttributes(request: MiddlewareRequest): OpenTelemetry.Attributes {
  const { method, params } = request;
  const attributes: OpenTelemetry.Attributes = { 'mcp.method.name': method };
  const target = targetOf(request);
  if (method === 'tools/call' && target !== undefined) {
    attributes['gen_ai.tool.name'] = target;
    attributes['gen_ai.operation.name'] = 'execute_tool';
  }
  if (method === 'prompts/get' && target !== undefined) attributes['gen_ai.prompt.name'] = target;
  if (typeof params.uri === 'string' && method.startsWith('resources/')) attributes['mcp.resource.uri'] = params.uri;
  return attributes;
}

/**
 * Mirrors `run()`'s events and ends `span` with them: an error sets the span's status and
 * `error.type` (the JSON-RPC code, as `rpc.response.status_code` too, or the error's name; on the
 * server, the codes of a caller's mistake only as `rpc.response.status_code`), a tool result with
 * `isError` sets `error.type` `tool_error`, a cancellation ends it with an event. `run` is
 * subscribed to inside `active`, so work it starts is a child of the span.
 */
export function spanned(
  api: OpenTelemetryApi,
  side: 'client' | 'server',
  span: OpenTelemetry.Span,
  active: OpenTelemetry.Context,
  run: () => Observable<MiddlewareEvent>,
): Observable<MiddlewareEvent> {
  return new Observable<MiddlewareEvent>((subscriber) => {
    let ended = false;
    let answered = false;
    const end = () => {
      ended = true;
      span.end();
    };
    const inner = api.context.with(active, () =>
      run().subscribe({
        next: (event) => {
          if (event instanceof RequestSent) span.setAttribute('jsonrpc.request.id', String(event.id));
          if (isResultEvent(event)) answered = true;
          if (isResultEvent(event) && event.isError === true) {
            span.setAttribute('error.type', 'tool_error');
            span.setStatus({ code: api.SpanStatusCode.ERROR, message: 'the tool reported an error' });
          }
          subscriber.next(event);
        },
        error: (error: unknown) => {
          recordError(api, side, span, error);
          end();
          subscriber.error(error);
        },
        complete: () => {
          end();
          subscriber.complete();
        },
      }),
    );
    return () => {
      inner.unsubscribe();
      if (ended) return;
      // A caller that stops listening once it has the result (`take(1)`) did not cancel.
      if (!answered) span.addEvent('cancelled');
      end();
    };
  });
}

/**
 * The JSON-RPC codes of a request the server could not serve through the caller's fault (parse
 * error, invalid request, method not found, invalid params, resource not found): the conventions
 * do not count them as errors of the server's span.
 */
const CALLER_FAULT_CODES: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32602, -32002]);

function recordError(api: OpenTelemetryApi, side: 'client' | 'server', span: OpenTelemetry.Span, error: unknown): void {
  if (error instanceof JsonRpcError) {
    span.setAttribute('rpc.response.status_code', String(error.code));
    if (side === 'server' && CALLER_FAULT_CODES.has(error.code)) return;
    span.setAttribute('error.type', String(error.code));
  } else {
    span.setAttribute('error.type', error instanceof Error ? error.name : 'unknown');
  }
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
