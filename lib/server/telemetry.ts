import { extractTraceContext, requestAttributes, spanNameOf, spanned, startTracing } from '../connection/telemetry';
import type { TracingOptions } from '../connection/tracing-options';
import type { ServerMiddleware } from './middleware';

/**
 * A server middleware that makes a span of kind SERVER for every request served, named and
 * attributed per the OpenTelemetry semantic conventions for MCP (`tools/call echo`;
 * `mcp.method.name`, `gen_ai.tool.name`, `jsonrpc.request.id`, `mcp.protocol.version`,
 * `mcp.session.id`, `network.transport` and `network.protocol.name` over HTTP, `error.type`), a
 * child of the trace context the client sent in `_meta` (`traceparent`, `tracestate`, `baggage`,
 * as the propagator reads them; with none registered, `traceparent` and `tracestate` in the W3C
 * format, invalid ones ignored; spec 2026-07-28: Basic → `_meta`). The handler runs in the span's
 * context, so its own spans are children of it. Loads `@opentelemetry/api` when called; throws
 * `TracingUnavailableError` when it is not installed.
 * @example
 * createServer({ name: 'demo', version: '1.0.0', middleware: [serverTracing()] });
 */
export function serverTracing(options: TracingOptions = {}): ServerMiddleware {
  const tracing = startTracing(options);
  const { api, tracer, networkTransport } = tracing;
  return (request, context, next) => {
    const meta = request.params._meta;
    const carrier = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {};
    const parent = extractTraceContext(tracing, api.context.active(), carrier);
    const attributes = requestAttributes(request);
    attributes['jsonrpc.request.id'] = String(context.requestId);
    attributes['mcp.protocol.version'] = context.revision;
    if (context.session !== undefined) attributes['mcp.session.id'] = context.session.id;
    if (context.headers !== undefined) {
      attributes['network.transport'] = 'tcp';
      attributes['network.protocol.name'] = 'http';
    } else if (networkTransport !== undefined) attributes['network.transport'] = networkTransport;
    const span = tracer.startSpan(spanNameOf(request), { kind: api.SpanKind.SERVER, attributes }, parent);
    return spanned(api, 'server', span, api.trace.setSpan(parent, span), () => next());
  };
}
