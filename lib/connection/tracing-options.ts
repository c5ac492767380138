import { RxmcpError, RxmcpErrorCode } from '../jsonrpc/errors';
/**
 * The public face of tracing: its options and its error. Declared without the types of
 * `@opentelemetry/api` (an optional peer dependency), so that a project without it still
 * type-checks rxmcp's declarations; any OpenTelemetry tracer provider and propagator fit.
 */

/** Tracing was switched on, but `@opentelemetry/api` is not installed. */
export class TracingUnavailableError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.TracingUnavailable;
  override readonly name = 'TracingUnavailableError';

  constructor(options?: ErrorOptions) {
    super(
      'Tracing needs @opentelemetry/api, an optional peer dependency of rxmcp: install it ' +
        '(npm install @opentelemetry/api) or leave tracing off',
      options,
    );
  }
}

/** The part of an OpenTelemetry `TracerProvider` tracing uses: any provider fits. */
export interface TracerProviderLike {
  /** The tracer of an instrumentation scope. */
  getTracer(name: string, version?: string): unknown;
}

/** The part of an OpenTelemetry `TextMapPropagator` tracing uses: any propagator fits. */
export interface TextMapPropagatorLike {
  /** Writes the context into a carrier. */
  inject(context: unknown, carrier: unknown, setter: unknown): void;
  /** Reads a context from a carrier. */
  extract(context: unknown, carrier: unknown, getter: unknown): unknown;
  /** The carrier fields it uses. */
  fields(): string[];
}

/** Options of the tracing middlewares. */
export interface TracingOptions {
  /** Where tracers come from. Default: the global tracer provider. */
  readonly tracerProvider?: TracerProviderLike;
  /**
   * How the trace context is written to and read from `_meta`. Default: the global propagator,
   * and when none is registered, rxmcp's own W3C Trace Context codec (`traceparent` and
   * `tracestate`; not `baggage`), so that the client's and the server's spans of a call are one
   * trace without any set-up.
   */
  readonly propagator?: TextMapPropagatorLike;
  /**
   * The span attribute `network.transport`: `'pipe'` for stdio, `'tcp'` (or `'quic'`) for HTTP.
   * Default: unset, except on a server for a request that came over HTTP, which is `'tcp'` with
   * `network.protocol.name` `'http'`.
   * @example
   * serverTracing({ networkTransport: 'pipe' }) // a server on stdio
   */
  readonly networkTransport?: string;
}
