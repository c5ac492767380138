import type { IncomingHttpHeaders } from 'node:http';
import { utf8Length } from '../../base/text';

/**
 * The parts of an HTTP request and response that the MCP HTTP endpoints use. Node's
 * `IncomingMessage` and `ServerResponse` have them; so do the adapters that carry a web `Request`
 * and `Response` (`fetch-exchange.ts`), so that one implementation serves both. Internal to the
 * transport layer; types only.
 */

/** An incoming request: method, headers, the local address it arrived on, and its body as events. */
export interface HttpRequestLike {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  /** Lower-cased names; a repeated header may be an array. */
  readonly headers: IncomingHttpHeaders;
  /**
   * `localAddress` decides the default Host and Origin checks (loopback or not); off loopback, the
   * default Host allowed is that address with `localPort`.
   */
  readonly socket: { readonly localAddress?: string | undefined; readonly localPort?: number | undefined };
  /** True once the body was read to its end, by us or by a body parser before us. */
  readonly readableEnded: boolean;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** Reads the rest of the body and discards it. */
  resume(): unknown;
}

/** A response being written: head, then body chunks (strings), then the end. */
export interface HttpResponseLike {
  /** True once `writeHead` was called. */
  readonly headersSent: boolean;
  /** True once `end` was called. */
  readonly writableEnded: boolean;
  /** True once the whole response was handed to the connection. */
  readonly writableFinished: boolean;
  /** Bytes written but not yet taken by the connection (a slow reader makes this grow). */
  readonly writableLength: number;
  /** Sets one header of the head to come; `writeHead`'s headers are added to it. */
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  writeHead(status: number, headers?: Record<string, string | number>): this;
  write(chunk: string): boolean;
  end(chunk?: string): this;
  /** Sends the head at once (an SSE stream is open before its first event). */
  flushHeaders(): void;
  /** Drops the connection. */
  destroy(): unknown;
  /** `close` fires once: after the response finished, or when the connection went first. */
  on(event: 'close', listener: () => void): unknown;
}

/** A timer handle as `setTimeout` returns it in any runtime (an object in Node, a number elsewhere). */
export type TimerHandle = ReturnType<typeof setTimeout>;

/**
 * Lets the process exit while `timer` is pending, where the runtime has that notion (Node, Bun);
 * elsewhere does nothing.
 */
export function unrefTimer(timer: TimerHandle): TimerHandle {
  const handle = timer as { unref?: () => void };
  if (typeof handle.unref === 'function') handle.unref();
  return timer;
}

/**
 * Answers with one JSON body, its length in the head. Without `content-length` a response whose
 * head was written first is chunked: its terminating chunk can leave in a second TCP segment, and
 * the peer then wakes twice per response.
 */
export function endJson(
  res: HttpResponseLike,
  status: number,
  text: string,
  headers: Record<string, string | number> = {},
): void {
  const length = utf8Length(text);
  // The added headers first: V8 adds a property to a spread copy slowly (see base/objects.ts).
  const head: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': length,
    ...headers,
  };
  head['content-type'] = 'application/json';
  head['content-length'] = length;
  res.writeHead(status, head).end(text);
}
