import { AsyncLocalStorage } from 'node:async_hooks';
import {
  context as otelContext,
  createTraceState,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { Context, ContextManager } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { McpClient } from '../../lib/client/client';
import { clientTracing } from '../../lib/client/telemetry';
import { TracingUnavailableError } from '../../lib/connection/telemetry';
import { authorize } from '../../lib/server/middleware-kit';
import type { ServerMiddleware } from '../../lib/server/middleware';
import { serverTracing } from '../../lib/server/telemetry';
import { until } from '../support/until';
import { clientOf, demoServer } from './harness';

/** The smallest context manager on AsyncLocalStorage, so that `context.with` reaches async work. */
class LocalContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(context, () => fn.call(thisArg, ...args));
  }
  bind<T>(_context: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

const propagator = new CompositePropagator({
  propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
});

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const spans = () => exporter.getFinishedSpans();
  const named = (kind: SpanKind) => spans().filter((span) => span.kind === kind);
  return { provider, spans, named };
}

/** Records the `_meta` of each request as it arrived over the wire (before any other middleware). */
function wireMeta(into: Record<string, unknown>[]): ServerMiddleware {
  return (request, _context, next) => {
    into.push((request.params._meta ?? {}) as Record<string, unknown>);
    return next();
  };
}

describe('tracing middleware', () => {
  let client: McpClient | undefined;
  afterEach(() => client?.close());

  it('makes the server span a child of the client span, through _meta.traceparent on the wire', async () => {
    const { provider, named } = tracing();
    const metas: Record<string, unknown>[] = [];
    const { server } = demoServer({
      middleware: [wireMeta(metas), serverTracing({ tracerProvider: provider, propagator })],
    });
    client = await clientOf(server, { middleware: [clientTracing({ tracerProvider: provider, propagator })] });
    await client.promises.callTool('echo', { text: 'hi' }, { progress: false });
    await until(() => named(SpanKind.SERVER).length === 1 && named(SpanKind.CLIENT).length === 1);
    const [clientSpan] = named(SpanKind.CLIENT) as [ReadableSpan];
    const [serverSpan] = named(SpanKind.SERVER) as [ReadableSpan];
    expect(clientSpan.name).toBe('tools/call echo');
    expect(serverSpan.name).toBe('tools/call echo');
    expect(serverSpan.spanContext().traceId).toBe(clientSpan.spanContext().traceId);
    expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
    expect(metas[0]!.traceparent).toBe(`00-${clientSpan.spanContext().traceId}-${clientSpan.spanContext().spanId}-01`);
    expect(clientSpan.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-11-25',
    });
    expect(serverSpan.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'jsonrpc.request.id': expect.any(String),
      'mcp.protocol.version': '2025-11-25',
      'mcp.session.id': [...server.sessions][0]!.id,
    });
    expect(clientSpan.attributes['jsonrpc.request.id']).toBe(serverSpan.attributes['jsonrpc.request.id']);
    expect(serverSpan.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('marks a failed tool and a refused request as errors on both sides', async () => {
    const { provider, named } = tracing();
    const { server } = demoServer({
      middleware: [serverTracing({ tracerProvider: provider, propagator }), authorize({ tools: { steps: ['x'] } })],
    });
    client = await clientOf(server, { middleware: [clientTracing({ tracerProvider: provider, propagator })] });
    await client.promises.callTool('broken');
    await client.promises.callTool('steps').catch(() => undefined);
    await until(() => named(SpanKind.SERVER).length === 2 && named(SpanKind.CLIENT).length === 2);
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const [broken, refused] = named(kind) as [ReadableSpan, ReadableSpan];
      expect(broken.attributes['error.type']).toBe('tool_error');
      expect(broken.status.code).toBe(SpanStatusCode.ERROR);
      expect(refused.attributes).toMatchObject({ 'error.type': '-32003', 'rpc.response.status_code': '-32003' });
      expect(refused.status).toMatchObject({
        code: SpanStatusCode.ERROR,
        message: 'Forbidden: tools/call needs the scope x',
      });
    }
  });

  it('counts a caller’s mistake (an unknown tool) as an error of the client span, not of the server span', async () => {
    const { provider, named } = tracing();
    const { server } = demoServer({ middleware: [serverTracing({ tracerProvider: provider })] });
    client = await clientOf(server, { middleware: [clientTracing({ tracerProvider: provider })] });
    const failure = await client.promises.callTool('nope').catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: -32602 });
    await until(() => named(SpanKind.SERVER).length === 1 && named(SpanKind.CLIENT).length === 1);
    const [clientSpan] = named(SpanKind.CLIENT) as [ReadableSpan];
    const [serverSpan] = named(SpanKind.SERVER) as [ReadableSpan];
    expect(clientSpan.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(clientSpan.status.code).toBe(SpanStatusCode.ERROR);
    expect(serverSpan.attributes['rpc.response.status_code']).toBe('-32602');
    expect(serverSpan.attributes['error.type']).toBeUndefined();
    expect(serverSpan.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('sets network.transport as the options say, off HTTP', async () => {
    const { provider, named } = tracing();
    const { server } = demoServer({
      middleware: [serverTracing({ tracerProvider: provider, networkTransport: 'pipe' })],
    });
    client = await clientOf(server, {
      middleware: [clientTracing({ tracerProvider: provider, networkTransport: 'pipe' })],
    });
    await client.promises.callTool('echo', { text: 'hi' }, { progress: false });
    await until(() => named(SpanKind.SERVER).length === 1 && named(SpanKind.CLIENT).length === 1);
    for (const span of [...named(SpanKind.CLIENT), ...named(SpanKind.SERVER)]) {
      expect(span.attributes['network.transport']).toBe('pipe');
      expect(span.attributes['network.protocol.name']).toBeUndefined();
    }
  });

  it('carries tracestate and baggage, and traces modern requests with their revision', async () => {
    const { provider, named } = tracing();
    const metas: Record<string, unknown>[] = [];
    const { server } = demoServer({
      middleware: [wireMeta(metas), serverTracing({ tracerProvider: provider, propagator })],
    });
    client = await clientOf(server, {
      protocolVersion: '2026-07-28',
      middleware: [
        // An outer middleware stands in for a caller with baggage and a tracestate in its context.
        (request, _c, next) =>
          next({
            ...request,
            options: {
              ...request.options,
              meta: { ...request.options.meta, baggage: 'tenant=t1', tracestate: 'vendor=x' },
            },
          }),
        clientTracing({ tracerProvider: provider, propagator }),
      ],
    });
    await client.promises.callTool('echo', { text: 'hi' }, { progress: false });
    await until(() => named(SpanKind.SERVER).some((span) => span.name === 'tools/call echo'));
    const serverSpan = named(SpanKind.SERVER).find((span) => span.name === 'tools/call echo')!;
    expect(serverSpan.attributes['mcp.protocol.version']).toBe('2026-07-28');
    expect(serverSpan.attributes['mcp.session.id']).toBeUndefined();
    expect(metas.at(-1)).toMatchObject({
      traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/),
      tracestate: 'vendor=x',
      baggage: 'tenant=t1',
    });
    // The server read the tracestate with the traceparent: its span carries it on.
    expect(serverSpan.spanContext().traceState?.serialize()).toBe('vendor=x');
  });

  it('ignores a malformed traceparent from a peer: the server span starts a trace of its own', async () => {
    const { provider, named } = tracing();
    const { server } = demoServer({ middleware: [serverTracing({ tracerProvider: provider, propagator })] });
    client = await clientOf(server);
    await client.promises.callTool(
      'echo',
      { text: 'hi' },
      { progress: false, meta: { traceparent: 42 as unknown as string } },
    );
    await client.promises.callTool('echo', { text: 'hi' }, { progress: false, meta: { traceparent: 'nonsense' } });
    await until(() => named(SpanKind.SERVER).length === 2);
    for (const span of named(SpanKind.SERVER)) expect(span.parentSpanContext).toBeUndefined();
  });

  it('injects the caller’s active context and baggage, and runs the handler in the server span’s context', async () => {
    const manager = new LocalContextManager();
    otelContext.setGlobalContextManager(manager);
    try {
      const { provider, named, spans } = tracing();
      const tracer = provider.getTracer('spec');
      const metas: Record<string, unknown>[] = [];
      const { server } = demoServer({
        middleware: [wireMeta(metas), serverTracing({ tracerProvider: provider, propagator })],
      });
      server.tool({
        name: 'nested',
        description: 'starts a span of its own',
        handler: () => {
          const baggage = propagation.getBaggage(otelContext.active())?.getEntry('tenant')?.value;
          tracer.startSpan('inside the tool').end();
          return { content: [{ type: 'text', text: String(baggage) }] };
        },
      });
      client = await clientOf(server, { middleware: [clientTracing({ tracerProvider: provider, propagator })] });
      const caller = tracer.startSpan('caller');
      const withBaggage = propagation.setBaggage(
        trace.setSpan(otelContext.active(), caller),
        propagation.createBaggage({ tenant: { value: 't1' } }),
      );
      const result = await otelContext.with(withBaggage, () =>
        client!.promises.callTool('nested', {}, { progress: false }),
      );
      caller.end();
      await until(() => named(SpanKind.SERVER).length === 1);
      const find = (name: string) => spans().find((span) => span.name === name)!;
      expect(metas[0]!.baggage).toBe('tenant=t1');
      expect(result.content[0]).toEqual({ type: 'text', text: 't1' });
      expect(find('tools/call nested').parentSpanContext).toBeDefined();
      const clientSpan = named(SpanKind.CLIENT)[0]!;
      const serverSpan = named(SpanKind.SERVER)[0]!;
      expect(clientSpan.parentSpanContext?.spanId).toBe(find('caller').spanContext().spanId);
      expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
      expect(find('inside the tool').parentSpanContext?.spanId).toBe(serverSpan.spanContext().spanId);
    } finally {
      otelContext.disable();
    }
  });

  it('with no propagator set up, injects the caller’s trace and tracestate, and the server carries them on', async () => {
    otelContext.setGlobalContextManager(new LocalContextManager());
    try {
      const { provider, named } = tracing();
      const metas: Record<string, unknown>[] = [];
      const { server } = demoServer({ middleware: [wireMeta(metas), serverTracing({ tracerProvider: provider })] });
      client = await clientOf(server, { middleware: [clientTracing({ tracerProvider: provider })] });
      // The caller's span continues a trace that came from upstream with a tracestate.
      const upstream = trace.setSpanContext(ROOT_CONTEXT, {
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        traceFlags: 1,
        isRemote: true,
        traceState: createTraceState('vendor=x,other=y'),
      });
      await otelContext.with(upstream, () => client!.promises.callTool('echo', { text: 'hi' }, { progress: false }));
      await until(() => named(SpanKind.SERVER).length === 1 && named(SpanKind.CLIENT).length === 1);
      const clientSpan = named(SpanKind.CLIENT)[0]!;
      const serverSpan = named(SpanKind.SERVER)[0]!;
      expect(clientSpan.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
      expect(metas[0]).toMatchObject({
        traceparent: `00-0af7651916cd43dd8448eb211c80319c-${clientSpan.spanContext().spanId}-01`,
        tracestate: 'vendor=x,other=y',
      });
      expect(serverSpan.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
      expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
      expect(serverSpan.spanContext().traceState?.serialize()).toBe('vendor=x,other=y');
    } finally {
      otelContext.disable();
    }
  });

  it('says clearly that @opentelemetry/api is missing when tracing is switched on without it', () => {
    jest.isolateModules(() => {
      jest.doMock('@opentelemetry/api', () => {
        throw Object.assign(new Error("Cannot find module '@opentelemetry/api'"), { code: 'MODULE_NOT_FOUND' });
      });
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const isolated = require('../../lib/server/telemetry') as { serverTracing: typeof serverTracing };
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const errors = require('../../lib/connection/telemetry') as {
        TracingUnavailableError: typeof TracingUnavailableError;
      };
      expect(() => isolated.serverTracing()).toThrow(errors.TracingUnavailableError);
      expect(() => isolated.serverTracing()).toThrow(/npm install @opentelemetry\/api/);
    });
    expect(TracingUnavailableError.name).toBe('TracingUnavailableError');
  });
});
