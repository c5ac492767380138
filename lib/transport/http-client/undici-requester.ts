/**
 * A requester over undici's connection pool, the HTTP/1.1 client Node's own `fetch` is built on,
 * without the `fetch` layer. It is the default on Node: each request costs about a third less CPU
 * than a `node:http` ClientRequest, which is most of what a client spends on a call over loopback.
 */
import type * as NodeModule from 'node:module';
import type { Dispatcher, Pool } from 'undici';
import { builtinModuleLoader } from '../../base/node-builtins';
import { abortError, answerWithHead, IDLE_SOCKET_MS, MAX_STALE_RETRIES } from './http-requester';
import type { HttpAnswer, HttpCall, HttpRequester, HttpRequestSpec } from './http-requester';
import { Utf8Chunks } from './utf8-chunks';

/** The part of undici this module uses. */
export interface UndiciModule {
  readonly Pool: typeof Pool;
}

/** What loading undici gave: the module, or null when it could not be loaded; undefined before the first try. */
let loaded: UndiciModule | null | undefined;

/**
 * The module of undici's `Pool` class: what its entry exports as `Pool`. undici's entry loads all of
 * undici (fetch, WebSocket, caches, mocks), about 100 ms on a small machine before a client's first
 * request, where the pool alone takes about 25 ms.
 */
const UNDICI_POOL_MODULE = 'undici/lib/dispatcher/pool';

/**
 * undici's pool, loaded when first asked for (once per process) and never imported statically, so
 * that bundles made for a browser leave it out. From undici's entry if its pool's module moved.
 * Undefined where there is no Node or undici cannot be loaded.
 */
export function loadUndici(): UndiciModule | undefined {
  if (loaded === undefined) {
    const load = builtinModuleLoader();
    loaded = load ? requireUndici((load('node:module') as typeof NodeModule).createRequire(__filename)) : null;
  }
  return loaded ?? undefined;
}

/** The pool's own module, or undici's entry when that module is not where undici 7 keeps it; null without undici. */
function requireUndici(required: NodeJS.Require): UndiciModule | null {
  try {
    const pool = required(UNDICI_POOL_MODULE) as unknown;
    if (typeof pool === 'function') return { Pool: pool as typeof Pool };
  } catch {
    // moved: the entry has it
  }
  try {
    return required('undici') as UndiciModule;
  } catch {
    return null;
  }
}

/**
 * Makes requests to `url` through one undici `Pool` of keep-alive connections (as many as there are
 * requests in flight), made at the first request and again after `close()`. Neither headers nor
 * bodies time out here: a tool call or an event stream may take as long as its caller allows, and
 * the transport bounds what it waits for. With `socketPath`, the connections are to that Unix
 * socket or named pipe. A GET or DELETE cut before any answer (a kept-alive
 * connection the server had closed) is sent again, a few times at most; a POST never is: the server
 * may have read it, and a tool call must not run twice (#13).
 */
export function createUndiciRequester(url: URL, undici: UndiciModule, socketPath?: string): HttpRequester {
  const origin = url.origin;
  const path = `${url.pathname}${url.search}`;
  let pool: Pool | undefined;
  const open = (): Pool =>
    (pool ??= new undici.Pool(origin, {
      keepAliveTimeout: IDLE_SOCKET_MS,
      keepAliveMaxTimeout: IDLE_SOCKET_MS,
      headersTimeout: 0,
      bodyTimeout: 0,
      ...(socketPath === undefined ? {} : { socketPath }),
    }));
  return {
    request: (spec) => dispatch(open(), path, spec),
    close() {
      const closing = pool;
      pool = undefined;
      // Requests already made go on: closing waits for them, then ends the connections.
      closing?.close().catch(() => undefined);
    },
  };
}

/** Where a body's text goes once `read` is called; until then it is kept. */
interface BodySink {
  onText(text: string): void;
  done(): void;
  fail(error: Error): void;
}

/**
 * A connection cut under a request is reported as `node:http` reports it (`ECONNRESET`), which
 * the transport tells from other failures: the requests on it fail, the transport goes on.
 */
function asReset(error: Error): Error {
  if ((error as { code?: unknown }).code !== 'UND_ERR_SOCKET') return error;
  return Object.assign(new Error(`the connection was reset: ${error.message}`, { cause: error }), {
    code: 'ECONNRESET',
  });
}

/** One request, as the handler undici calls: its answer, then its body as text. */
class UndiciCall implements Dispatcher.DispatchHandler, HttpCall {
  readonly answer: Promise<HttpAnswer>;
  private retries = 0;
  private controller: Dispatcher.DispatchController | undefined;
  private resolveAnswer!: (answer: HttpAnswer) => void;
  private rejectAnswer!: (error: Error) => void;
  private aborted = false;
  private answered = false;
  private eventStream = false;
  private discarding = false;
  private ended = false;
  private failure: Error | undefined;
  /** Text that arrived before `read`. */
  private kept: string[] = [];
  private sink: BodySink | undefined;
  /** The body's text so far, made when its first chunk arrives. */
  private utf8: Utf8Chunks | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly options: Dispatcher.DispatchOptions,
  ) {
    this.answer = new Promise<HttpAnswer>((resolve, reject) => {
      this.resolveAnswer = resolve;
      this.rejectAnswer = reject;
    });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.aborted) controller.abort(abortError());
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.answered = true;
    this.eventStream = String(headers['content-type'] ?? '').includes('text/event-stream');
    this.resolveAnswer(
      answerWithHead(
        status,
        headers,
        (onText) => this.read(onText),
        () => this.discard(),
      ),
    );
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.discarding) this.deliver((this.utf8 ??= new Utf8Chunks()).text(chunk));
  }

  onResponseEnd(): void {
    this.ended = true;
    if (this.utf8 && !this.discarding) this.deliver(this.utf8.end());
    this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const reported = this.aborted ? abortError() : asReset(error);
    if (!this.answered && this.mayRetry(reported)) {
      this.retries++;
      this.controller = undefined;
      this.pool.dispatch(this.options, this);
      return;
    }
    if (!this.answered) {
      this.rejectAnswer(reported);
      return;
    }
    if (this.ended) return;
    this.failure = reported;
    this.fail(reported);
  }

  read(onText: (text: string) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const kept = this.kept;
      this.kept = [];
      if (this.aborted) return reject(abortError());
      this.sink = { onText, done: resolve, fail: reject };
      for (const text of kept) if (!this.deliver(text)) return;
      if (this.failure) this.fail(this.failure);
      else if (this.ended) this.finish();
    });
  }

  discard(): void {
    this.discarding = true;
    this.kept = [];
    // A body nobody reads is let run to its end, so that its connection can be reused; but an
    // event stream may never end, and its connection is cut.
    if (!this.ended && this.eventStream) this.controller?.abort(abortError());
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.fail(abortError());
    this.controller?.abort(abortError());
  }

  /** Whether a request that failed before any answer is sent again: an idempotent one, on a reset connection. */
  private mayRetry(error: Error): boolean {
    const { code } = error as { code?: unknown };
    return (
      !this.aborted &&
      this.options.method !== 'POST' &&
      this.retries < MAX_STALE_RETRIES &&
      (code === 'ECONNRESET' || code === 'EPIPE')
    );
  }

  /** Hands text to the reader, or keeps it until there is one; false when the reader threw. */
  private deliver(text: string): boolean {
    if (text === '') return true;
    const sink = this.sink;
    if (!sink) {
      this.kept.push(text);
      return true;
    }
    try {
      sink.onText(text);
      return true;
    } catch (error) {
      this.fail(error as Error);
      this.controller?.abort(error as Error);
      return false;
    }
  }

  private finish(): void {
    const sink = this.sink;
    this.sink = undefined;
    sink?.done();
  }

  private fail(error: Error): void {
    const sink = this.sink;
    this.sink = undefined;
    sink?.fail(error);
  }
}

function dispatch(pool: Pool, path: string, spec: HttpRequestSpec): HttpCall {
  const options: Dispatcher.DispatchOptions = { path, method: spec.method, headers: spec.headers };
  if (spec.body !== undefined) options.body = spec.body;
  const call = new UndiciCall(pool, options);
  pool.dispatch(options, call);
  return call;
}
