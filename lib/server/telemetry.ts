import { metaGetter, requestAttributes, spanNameOf, spanned, startTracing } from '../connection/telemetry';
import type { TracingOptions } from '../connection/tracing-options';
import type { ServerMiddleware } from './middleware';

/**
 * A server middleware that makes a span of kind SERVER for every request served, named and
 * attributed per the OpenTelemetry semantic conventions for MCP (`tools/call echo`;
 * `mcp.method.name`, `gen_ai.tool.name`, `jsonrpc.request.id`, `mcp.protocol.version`,
 * `mcp.session.id`, `error.type`), a child of the trace context the client sent in `_meta`
 * (`traceparent`, `tracestate`, `baggage`; spec 2026-07-28: Basic → `_meta`). The handler runs in
 * the span's context, so its own spans are children of it. Loads `@opentelemetry/api` when
 * called; throws `TracingUnavailableError` when it is not installed.
 * @example
 * createServer({ name: 'demo', version: '1.0.0', middleware: [serverTracing()] });
 */
export function serverTracing(options: TracingOptions = {}): ServerMiddleware {
  const { api, tracer, propagator } = startTracing(options);
  return (request, context, next) => {
    const meta = request.params._meta;
    const carrier = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {};
    const parent = propagator
      ? propagator.extract(api.context.active(), carrier, metaGetter)
      : api.propagation.extract(api.context.active(), carrier, metaGetter);
    const attributes = requestAttributes(request);
    attributes['jsonrpc.request.id'] = String(context.requestId);
    attributes['mcp.protocol.version'] = context.revision;
    if (context.session !== undefined) attributes['mcp.session.id'] = context.session.id;
    const span = tracer.startSpan(spanNameOf(request), { kind: api.SpanKind.SERVER, attributes }, parent);
    return spanned(api, span, api.trace.setSpan(parent, span), () => next());
  };
}
