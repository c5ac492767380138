import { injectTraceContext, requestAttributes, spanNameOf, spanned, startTracing } from '../connection/telemetry';
import type { TracingOptions } from '../connection/tracing-options';
import type { ClientMiddleware } from './middleware';

/**
 * A client middleware that makes a span of kind CLIENT for every request sent, a child of the
 * active context, named and attributed per the OpenTelemetry semantic conventions for MCP
 * (`tools/call echo`; `mcp.method.name`, `gen_ai.tool.name`, `mcp.protocol.version`,
 * `mcp.session.id`, `error.type`), and carries its trace context to the server in the request's
 * `_meta` (`traceparent`, `tracestate`, `baggage`, as the propagator writes them; with none
 * registered, `traceparent` and `tracestate` in the W3C format; spec 2026-07-28: Basic → `_meta`).
 * Loads `@opentelemetry/api` when called; throws `TracingUnavailableError` when it is not
 * installed.
 * @example
 * const client = await connect(transport, { name: 'app', version: '1.0.0', middleware: [clientTracing()] });
 */
export function clientTracing(options: TracingOptions = {}): ClientMiddleware {
  const tracing = startTracing(options);
  const { api, tracer, networkTransport } = tracing;
  return (request, context, next) => {
    const parent = api.context.active();
    const attributes = requestAttributes(request);
    if (context.revision !== undefined) attributes['mcp.protocol.version'] = context.revision;
    if (context.sessionId !== undefined) attributes['mcp.session.id'] = context.sessionId;
    if (networkTransport !== undefined) attributes['network.transport'] = networkTransport;
    const span = tracer.startSpan(spanNameOf(request), { kind: api.SpanKind.CLIENT, attributes }, parent);
    const active = api.trace.setSpan(parent, span);
    const carrier: Record<string, string> = {};
    injectTraceContext(tracing, active, carrier);
    const traced = { ...request, options: { ...request.options, meta: { ...request.options.meta, ...carrier } } };
    return spanned(api, 'client', span, active, () => next(traced));
  };
}
