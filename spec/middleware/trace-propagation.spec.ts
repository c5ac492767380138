import { propagation, SpanKind } from '@opentelemetry/api';
import type { TextMapPropagator } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { connect } from '../../lib/client/client';
import type { ClientRevision } from '../../lib/client/client-api';
import type { McpClient } from '../../lib/client/client';
import { clientTracing } from '../../lib/client/telemetry';
import { formatTraceparent, parseTraceparent, validTracestate } from '../../lib/connection/trace-context';
import type { ServerMiddleware } from '../../lib/server/middleware';
import { serverTracing } from '../../lib/server/telemetry';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { until } from '../support/until';
import { clientOf, demoServer } from './harness';

// Without a propagator given or registered, the client's and the server's spans of one call are
// one trace: rxmcp writes and reads the W3C `traceparent` and `tracestate` in `_meta` itself.

function tracing() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const find = (kind: SpanKind, name = 'tools/call echo') =>
    exporter.getFinishedSpans().filter((span) => span.kind === kind && span.name === name);
  /** The one client span and the one server span named `name`, once both have ended. */
  const pair = async (name = 'tools/call echo') => {
    await until(() => find(SpanKind.CLIENT, name).length === 1 && find(SpanKind.SERVER, name).length === 1);
    return { client: find(SpanKind.CLIENT, name)[0]!, server: find(SpanKind.SERVER, name)[0]! };
  };
  return { tracerProvider, find, pair };
}

/** Records the `_meta` of each request as it arrived over the wire. */
function wireMeta(into: Record<string, unknown>[]): ServerMiddleware {
  return (request, _context, next) => {
    into.push((request.params._meta ?? {}) as Record<string, unknown>);
    return next();
  };
}

function expectOneTrace(spans: { client: ReadableSpan; server: ReadableSpan }): void {
  expect(spans.server.spanContext().traceId).toBe(spans.client.spanContext().traceId);
  expect(spans.server.parentSpanContext?.spanId).toBe(spans.client.spanContext().spanId);
  expect(spans.server.parentSpanContext?.isRemote).toBe(true);
}

const echo = (client: McpClient) => client.promises.callTool('echo', { text: 'hi' }, { progress: false });

describe('trace propagation with no propagator set up', () => {
  let client: McpClient | undefined;
  afterEach(() => {
    client?.close();
    client = undefined;
  });

  it('has no global propagator here (the API’s no-op one names no fields)', () => {
    expect(propagation.fields()).toEqual([]);
  });

  it.each<ClientRevision>(['2025-11-25', '2026-07-28'])(
    'makes the server span a child of the client span over the in-memory pair (%s)',
    async (protocolVersion) => {
      const { tracerProvider, pair } = tracing();
      const metas: Record<string, unknown>[] = [];
      const { server } = demoServer({ middleware: [wireMeta(metas), serverTracing({ tracerProvider })] });
      client = await clientOf(server, { protocolVersion, middleware: [clientTracing({ tracerProvider })] });
      await echo(client);
      const spans = await pair();
      expectOneTrace(spans);
      const { traceId, spanId } = spans.client.spanContext();
      expect(metas.at(-1)!.traceparent).toBe(`00-${traceId}-${spanId}-01`);
      expect(metas.at(-1)!.baggage).toBeUndefined();
    },
  );

  it('adopts a valid traceparent sent as is, and starts a new trace, without an error, for an invalid one', async () => {
    const { tracerProvider, find } = tracing();
    const { server } = demoServer({ middleware: [serverTracing({ tracerProvider })] });
    client = await clientOf(server);
    const valid = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const invalid = [
      42,
      'nonsense',
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
      '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01',
    ];
    for (const traceparent of invalid) {
      const result = await client.promises.callTool(
        'echo',
        { text: 'hi' },
        { progress: false, meta: { traceparent: traceparent as string } },
      );
      expect(result.content[0]).toEqual({ type: 'text', text: 'hi' });
    }
    await client.promises.callTool(
      'echo',
      { text: 'hi' },
      { progress: false, meta: { traceparent: valid, tracestate: 'Not A Valid=member' } },
    );
    await client.promises.callTool(
      'echo',
      { text: 'hi' },
      { progress: false, meta: { traceparent: valid, tracestate: 'vendor=x,other=y' } },
    );
    await until(() => find(SpanKind.SERVER).length === invalid.length + 2);
    const served = find(SpanKind.SERVER);
    for (const span of served.slice(0, invalid.length)) expect(span.parentSpanContext).toBeUndefined();
    const [adopted, withState] = served.slice(invalid.length) as [ReadableSpan, ReadableSpan];
    for (const span of [adopted, withState]) {
      expect(span.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      expect(span.parentSpanContext).toMatchObject({ spanId: '00f067aa0ba902b7', isRemote: true });
    }
    // An invalid tracestate is dropped and the traceparent kept; a valid one carries on.
    expect(adopted.spanContext().traceState).toBeUndefined();
    expect(withState.spanContext().traceState?.serialize()).toBe('vendor=x,other=y');
  });

  it('lets a propagator given in the options win over the built-in codec', async () => {
    const { tracerProvider, pair } = tracing();
    const silent: TextMapPropagator = { inject: () => undefined, extract: (context) => context, fields: () => ['x'] };
    const metas: Record<string, unknown>[] = [];
    const { server } = demoServer({
      middleware: [wireMeta(metas), serverTracing({ tracerProvider, propagator: silent })],
    });
    client = await clientOf(server, { middleware: [clientTracing({ tracerProvider, propagator: silent })] });
    await echo(client);
    const spans = await pair();
    expect(metas[0]!.traceparent).toBeUndefined();
    expect(spans.server.spanContext().traceId).not.toBe(spans.client.spanContext().traceId);
  });

  describe('over Streamable HTTP', () => {
    let running: RunningStreamableHttpServer | undefined;
    afterEach(async () => {
      client?.close();
      client = undefined;
      await running?.close();
      running = undefined;
    });

    it.each<[string, ClientRevision]>([
      ['a 2025-11-25 session', '2025-11-25'],
      ['a 2026-07-28 modern request', '2026-07-28'],
    ])('makes one trace of %s', async (_label, protocolVersion) => {
      const { tracerProvider, pair } = tracing();
      const { server } = demoServer({ middleware: [serverTracing({ tracerProvider })] });
      running = await startStreamableHttpServer({ server, host: '127.0.0.1', port: 0 });
      const transport = createStreamableHttpClientTransport({ url: running.url, openStandaloneStream: false });
      client = await connect(transport, {
        name: 'trace-spec',
        version: '1.0.0',
        protocolVersion,
        middleware: [clientTracing({ tracerProvider })],
      });
      await echo(client);
      const spans = await pair();
      expectOneTrace(spans);
      expect(spans.server.attributes).toMatchObject({
        'mcp.protocol.version': protocolVersion,
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
      });
      if (protocolVersion === '2025-11-25')
        expect(spans.server.attributes['mcp.session.id']).toEqual(expect.any(String));
      else expect(spans.server.attributes['mcp.session.id']).toBeUndefined();
    });
  });
});

describe('trace propagation with a global W3C propagator registered', () => {
  let client: McpClient | undefined;
  beforeEach(() => propagation.setGlobalPropagator(new W3CTraceContextPropagator()));
  afterEach(() => {
    client?.close();
    propagation.disable();
  });

  it('makes the server span a child of the client span through the global propagator', async () => {
    const { tracerProvider, pair } = tracing();
    const { server } = demoServer({ middleware: [serverTracing({ tracerProvider })] });
    client = await clientOf(server, { middleware: [clientTracing({ tracerProvider })] });
    await echo(client);
    expectOneTrace(await pair());
  });

  it('uses the registered propagator rather than the built-in codec', async () => {
    const seen: string[] = [];
    const w3c = new W3CTraceContextPropagator();
    propagation.disable(); // registration is once only: this one instead of the W3C one
    propagation.setGlobalPropagator({
      inject: (context, carrier, setter) => {
        seen.push('inject');
        w3c.inject(context, carrier, setter);
      },
      extract: (context, carrier, getter) => {
        seen.push('extract');
        return w3c.extract(context, carrier, getter);
      },
      fields: () => w3c.fields(),
    });
    const { tracerProvider, pair } = tracing();
    const { server } = demoServer({ middleware: [serverTracing({ tracerProvider })] });
    client = await clientOf(server, { middleware: [clientTracing({ tracerProvider })] });
    await echo(client);
    expectOneTrace(await pair());
    expect(seen).toEqual(['inject', 'extract']);
  });
});

describe('the W3C trace context codec', () => {
  it('parses version 00 strictly, and a later version by its first fields', () => {
    const ids = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
    expect(parseTraceparent(`00-${ids.traceId}-${ids.spanId}-01`)).toEqual({ ...ids, traceFlags: 1 });
    expect(parseTraceparent(`00-${ids.traceId}-${ids.spanId}-00`)).toEqual({ ...ids, traceFlags: 0 });
    expect(parseTraceparent(`01-${ids.traceId}-${ids.spanId}-01-what-comes-later`)).toEqual({ ...ids, traceFlags: 1 });
    expect(parseTraceparent(`01-${ids.traceId}-${ids.spanId}-01x`)).toBeUndefined();
    expect(parseTraceparent(`00-${ids.traceId}-${ids.spanId}-0g`)).toBeUndefined();
    expect(parseTraceparent(` 00-${ids.traceId}-${ids.spanId}-01`)).toBeUndefined();
    expect(parseTraceparent(undefined)).toBeUndefined();
  });

  it('formats what it parses, and refuses invalid ids', () => {
    const value = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(formatTraceparent(parseTraceparent(value)!)).toBe(value);
    expect(formatTraceparent({ traceId: '0'.repeat(32), spanId: '00f067aa0ba902b7', traceFlags: 1 })).toBeUndefined();
    expect(formatTraceparent({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: 'short', traceFlags: 1 })).toBe(
      undefined,
    );
  });

  it('keeps a valid tracestate and drops an invalid one whole', () => {
    expect(validTracestate('vendor=x, tenant@system=y,,')).toBe('vendor=x, tenant@system=y,,');
    expect(validTracestate('vendor=x,vendor=y')).toBeUndefined();
    expect(validTracestate('Vendor=x')).toBeUndefined();
    expect(validTracestate('vendor=')).toBeUndefined();
    expect(validTracestate('vendor=a=b,c')).toBeUndefined();
    expect(validTracestate(Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(','))).toBeUndefined();
    expect(validTracestate('')).toBeUndefined();
  });
});
