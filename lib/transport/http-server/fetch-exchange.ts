import type { IncomingHttpHeaders } from 'node:http';
import type { HttpRequestLike, HttpResponseLike } from '../http/http-exchange';

/**
 * Web `Request` and `Response` as the request and response the Streamable HTTP endpoint writes to,
 * so that the fetch handler runs the same code as the Node one. Uses only web globals
 * (`ReadableStream`, `TextEncoder`, `Response`), no Node built-ins.
 */

type Listener = (...args: never[]) => void;

/** Hop-by-hop fields: a web `Response` has no connection of its own (and HTTP/2 forbids them). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

const ENCODER = new TextEncoder();

/** A web `Request` read as Node's `IncomingMessage` is: headers as a record, the body as events. */
export class FetchRequest implements HttpRequestLike {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly socket: { readonly localAddress?: string | undefined };
  private ended: boolean;
  private reading = false;
  private readonly listeners = new Map<string, Listener[]>();

  /** @param localAddress The address the request arrived on, when the host knows it (see `OriginPolicy`). */
  constructor(
    private readonly request: Request,
    localAddress: string | undefined,
  ) {
    this.method = request.method;
    this.url = request.url;
    this.headers = headersOf(request);
    this.socket = { localAddress };
    this.ended = request.bodyUsed;
  }

  get readableEnded(): boolean {
    return this.ended;
  }

  on(event: string, listener: Listener): this {
    const list = this.listeners.get(event) ?? [];
    list.push(listener);
    this.listeners.set(event, list);
    if (event === 'data') this.read();
    return this;
  }

  resume(): this {
    // Nothing waits for a refused body: stop reading it.
    if (!this.reading && this.request.body && !this.request.bodyUsed) {
      this.reading = true;
      this.request.body.cancel().catch(() => undefined);
    }
    return this;
  }

  private emit(event: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(event) ?? []) (listener as (...a: unknown[]) => void)(...args);
  }

  /** Starts reading the body; its events come asynchronously, after every listener is on. */
  private read(): void {
    if (this.reading) return;
    this.reading = true;
    void this.pump();
  }

  private async pump(): Promise<void> {
    try {
      const body = this.request.body;
      if (body) {
        const reader = body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (value && value.byteLength > 0) this.emit('data', value);
        }
      } else await Promise.resolve();
      this.ended = true;
      this.emit('end');
    } catch (error) {
      this.emit('error', error instanceof Error ? error : new Error(String(error)));
    }
    this.emit('close');
  }
}

/** The request's headers with lower-cased names; the Host comes from the URL when a runtime hides it. */
function headersOf(request: Request): IncomingHttpHeaders {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (headers.host === undefined) {
    try {
      headers.host = new URL(request.url).host;
    } catch {
      // A relative URL: no Host to check.
    }
  }
  return headers;
}

/**
 * A response written as Node's `ServerResponse` is, which becomes a web `Response`: one body when
 * it ends before anything is streamed, otherwise a `ReadableStream` that carries each write as it
 * is made. The consumer cancelling the stream, or `signal` aborting (the client went away), closes
 * it as a broken connection would.
 */
export class FetchResponse implements HttpResponseLike {
  /** Settles with the `Response` once its head is known (or at the end of a response without a head). */
  readonly response: Promise<Response>;
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  private status = 200;
  private head: Record<string, string> = {};
  private resolve!: (response: Response) => void;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private gone = false;
  private closed = false;
  private readonly closeListeners: Array<() => void> = [];

  constructor(signal: AbortSignal | undefined) {
    this.response = new Promise<Response>((resolve) => (this.resolve = resolve));
    if (signal?.aborted) this.abort();
    else signal?.addEventListener('abort', () => this.abort(), { once: true });
  }

  get writableLength(): number {
    const desired = this.controller?.desiredSize ?? 0;
    return desired < 0 ? -desired : 0;
  }

  /** Sets a header before the head is written (CORS headers, set before the answer is known). */
  setHeader(name: string, value: string | number | readonly string[]): this {
    const key = name.toLowerCase();
    if (!HOP_BY_HOP.has(key)) this.head[key] = Array.isArray(value) ? value.join(', ') : String(value);
    return this;
  }

  writeHead(status: number, headers: Record<string, string | number> = {}): this {
    this.status = status;
    for (const [name, value] of Object.entries(headers)) {
      const key = name.toLowerCase();
      if (!HOP_BY_HOP.has(key)) this.head[key] = String(value);
    }
    this.headersSent = true;
    return this;
  }

  flushHeaders(): void {
    this.stream();
  }

  write(chunk: string): boolean {
    if (this.writableEnded || this.gone) return false;
    const controller = this.stream();
    controller.enqueue(ENCODER.encode(chunk));
    return (controller.desiredSize ?? 0) > 0;
  }

  end(chunk?: string): this {
    if (this.writableEnded) return this;
    this.writableEnded = true;
    if (!this.gone) {
      if (this.controller) {
        if (chunk) this.controller.enqueue(ENCODER.encode(chunk));
        this.controller.close();
      } else this.resolve(new Response(chunk ?? null, { status: this.status, headers: this.head }));
      this.writableFinished = true;
    }
    queueMicrotask(() => this.emitClose());
    return this;
  }

  destroy(): this {
    if (this.gone || this.writableFinished) return this;
    const controller = this.stream();
    this.gone = true;
    controller.error(new Error('response destroyed'));
    this.emitClose();
    return this;
  }

  on(event: 'close', listener: () => void): this {
    if (event === 'close') this.closeListeners.push(listener);
    return this;
  }

  /** The streamed body, made (and the `Response` handed over) on the first write or flush. */
  private stream(): ReadableStreamDefaultController<Uint8Array> {
    if (this.controller) return this.controller;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          controller = c;
        },
        cancel: () => this.abort(),
      },
      // No high-water mark: whatever the reader has not taken counts as buffered (`writableLength`).
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    );
    this.controller = controller;
    this.headersSent = true;
    this.resolve(new Response(body, { status: this.status, headers: this.head }));
    return controller;
  }

  /** The client went away: later writes are dropped, and `close` fires as for a broken connection. */
  private abort(): void {
    if (this.gone || this.writableFinished) return;
    this.gone = true;
    // Nobody reads an answer to a client that left; the promise still settles.
    if (!this.controller) this.resolve(new Response(null, { status: 499 }));
    this.emitClose();
  }

  private emitClose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const listener of this.closeListeners) listener();
  }
}
