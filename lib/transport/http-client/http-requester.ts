import { RxmcpError, RxmcpErrorCode } from '../../jsonrpc/errors';
import type * as NodeHttp from 'node:http';
import type { Agent as HttpAgent, ClientRequest, IncomingMessage } from 'node:http';
import type * as NodeHttps from 'node:https';
import { builtinModuleLoader } from '../../base/node-builtins';
import { withProperty } from '../../base/objects';

/**
 * The HTTP client the Streamable HTTP client transport talks through: one request at a time,
 * whichever stack carries it (`node:http`/`node:https` with a keep-alive agent, or a `fetch`).
 * Internal to the transport layer.
 */

/** What to send. Header names are lower-case. */
export interface HttpRequestSpec {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** An answer whose status and headers arrived; its body is read once, by one of the methods. */
export interface HttpAnswer {
  readonly status: number;
  /** Whether the status is 2xx. */
  readonly ok: boolean;
  /** A response header by lower-case name; repeated values joined with `, `. */
  header(name: string): string | undefined;
  /**
   * Reads the body as UTF-8 text, calling `onText` with each decoded piece as it arrives (a
   * multi-byte character is never split). Resolves when the body ends; rejects when it breaks
   * (the connection closed early, the call was aborted, or `onText` threw).
   */
  read(onText: (text: string) => void): Promise<void>;
  /**
   * The whole body as text. Past `maxLength` characters (default: no bound) the reading stops,
   * the connection is cut and the promise rejects with {@link BodyTooLargeError}.
   */
  text(maxLength?: number): Promise<string>;
  /** Drops the body without reading it. Never throws. */
  discard(): void;
}

/** One request in flight. */
export interface HttpCall {
  /** Settles once the status and headers arrived; rejects when the request could not be made. */
  readonly answer: Promise<HttpAnswer>;
  /** Aborts the request, or the reading of its body: pending reads reject. Idempotent. */
  abort(): void;
}

/** What `text(maxLength)` rejects with when a body outgrows its bound. */
export class BodyTooLargeError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.BodyTooLarge;
  constructor(readonly maxLength: number) {
    super(`the response body exceeded ${maxLength} characters`);
    this.name = 'BodyTooLargeError';
  }
}

/** Reads a whole body through `read`, up to `maxLength` characters. */
async function boundedText(read: HttpAnswer['read'], maxLength = Infinity): Promise<string> {
  let text = '';
  await read((piece) => {
    text += piece;
    if (text.length > maxLength) throw new BodyTooLargeError(maxLength);
  });
  return text;
}

/** Makes requests to one URL. */
export interface HttpRequester {
  request(spec: HttpRequestSpec): HttpCall;
  /** Releases what it holds (idle keep-alive connections); calls already made go on. */
  close(): void;
}

/** A requester over a `fetch`, with an `AbortController` per request. */
export function createFetchRequester(url: URL, doFetch: typeof fetch): HttpRequester {
  return {
    request(spec) {
      const controller = new AbortController();
      const init: RequestInit = { method: spec.method, headers: spec.headers, signal: controller.signal };
      if (spec.body !== undefined) init.body = spec.body;
      const answer = doFetch(url, init).then((response) => fetchAnswer(response));
      return { answer, abort: () => controller.abort() };
    },
    close() {
      // fetch owns its connections.
    },
  };
}

function fetchAnswer(response: Response): HttpAnswer {
  const answer: HttpAnswer = {
    status: response.status,
    ok: response.ok,
    header: (name) => response.headers.get(name) ?? undefined,
    async read(onText) {
      const body = response.body;
      if (!body) return;
      const reader = body.getReader();
      const decoder = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          const text = decoder.decode(value, { stream: true });
          if (text !== '') onText(text);
        }
      } catch (error) {
        await reader.cancel().catch(() => undefined);
        throw error;
      } finally {
        reader.releaseLock();
      }
    },
    text: (maxLength) => boundedText(answer.read, maxLength),
    discard() {
      response.body?.cancel().catch(() => undefined);
    },
  };
  return answer;
}

/** `node:http` and `node:https`, loaded when a node requester is made; undefined where Node is not. */
export function nodeHttpModules(): { readonly http: typeof NodeHttp; readonly https: typeof NodeHttps } | undefined {
  const load = builtinModuleLoader();
  if (!load) return undefined;
  return { http: load('node:http') as typeof NodeHttp, https: load('node:https') as typeof NodeHttps };
}

/** How often an idempotent request that failed on a reused keep-alive connection is tried again. */
export const MAX_STALE_RETRIES = 4;

/**
 * How long an idle keep-alive connection is kept: under the 5 s a Node server keeps one by default,
 * so that the client, not the server, closes it, and a request is seldom written to a connection the
 * server is closing.
 */
export const IDLE_SOCKET_MS = 4_000;

/**
 * A requester over `node:http` or `node:https` (by the URL's scheme). Without `given` it makes a
 * keep-alive agent of its own, so consecutive requests reuse connections, and `close()` destroys
 * it; a `given` agent is used as it is and left open. An idempotent request (GET, DELETE) that
 * fails before any answer on a reused connection (the server closed it while idle) is sent again
 * on another connection. A POST never is: the server may have read it before the connection broke,
 * and a tool call must not run twice (#13); its caller gets the error.
 */
export function createNodeRequester(
  url: URL,
  given?: HttpAgent,
  modules = nodeHttpModules(),
  socketPath?: string,
): HttpRequester {
  if (!modules) throw new TypeError('node:http is not available here: give the transport a fetch');
  const secure = url.protocol === 'https:';
  const agent =
    given ??
    (secure
      ? new modules.https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS })
      : new modules.http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }));
  const send = secure ? modules.https.request : modules.http.request;
  // The URL as request options, once (Node would convert it on every request).
  const target = {
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    ...(url.port === '' ? {} : { port: Number(url.port) }),
    path: `${url.pathname}${url.search}`,
    ...(socketPath === undefined ? {} : { socketPath }),
    ...(url.username !== '' || url.password !== ''
      ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }
      : {}),
    agent,
  };
  return {
    request(spec) {
      let current: ClientRequest | undefined;
      let aborted = false;
      let abortBody: (() => void) | undefined;
      const answer = new Promise<HttpAnswer>((resolve, reject) => {
        const attempt = (stale: number): void => {
          const headers =
            spec.body === undefined
              ? spec.headers
              : withProperty(spec.headers, 'content-length', String(Buffer.byteLength(spec.body)));
          const req = send({ method: spec.method, headers, ...target });
          current = req;
          let answered = false;
          req.on('response', (res: IncomingMessage) => {
            answered = true;
            const node = nodeAnswer(req, res);
            abortBody = node.abort;
            resolve(node.answer);
          });
          req.on('error', (error: NodeJS.ErrnoException) => {
            if (answered) return; // the answer's body reports it
            if (
              !aborted &&
              spec.method !== 'POST' &&
              req.reusedSocket &&
              stale < MAX_STALE_RETRIES &&
              (error.code === 'ECONNRESET' || error.code === 'EPIPE')
            ) {
              attempt(stale + 1);
              return;
            }
            reject(aborted ? abortError() : error);
          });
          req.end(spec.body);
        };
        attempt(0);
      });
      return {
        answer,
        abort() {
          if (aborted) return;
          aborted = true;
          if (abortBody) abortBody();
          else current?.destroy();
        },
      };
    },
    close() {
      if (!given) agent.destroy();
    },
  };
}

/**
 * An answer whose head came as Node gives one (lower-case names, a repeated header as an array):
 * what the `node:http` and undici requesters share.
 */
export function answerWithHead(
  status: number,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  read: HttpAnswer['read'],
  discard: () => void,
): HttpAnswer {
  return {
    status,
    ok: status >= 200 && status < 300,
    header(name) {
      const value = headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    read,
    text: (maxLength) => boundedText(read, maxLength),
    discard,
  };
}

/** The error a read or an answer rejects with once its call was aborted. */
export function abortError(): Error {
  const error = new Error('The request was aborted');
  error.name = 'AbortError';
  return error;
}

function nodeAnswer(req: ClientRequest, res: IncomingMessage): { answer: HttpAnswer; abort: () => void } {
  const status = res.statusCode ?? 0;
  let aborted = false;
  // Until a reader takes the body, errors are only noted (an abort must not become an uncaught error).
  res.on('error', () => undefined);
  const consume = (onText: (text: string) => void): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (aborted) {
        reject(abortError());
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        try {
          onText(text);
        } catch (error) {
          res.removeAllListeners('data');
          req.destroy();
          reject(error as Error);
        }
      });
      res.on('end', () => resolve());
      res.on('close', () => {
        if (aborted) reject(abortError());
        else if (!res.complete) reject(new Error('the connection closed before the response body ended'));
        else resolve();
      });
    });
  return {
    answer: answerWithHead(status, res.headers, consume, () => {
      // A body is drained so that the connection can be reused, but an event stream may never
      // end: that connection is cut.
      if (!res.complete && (res.headers['content-type'] ?? '').includes('text/event-stream')) req.destroy();
      else res.resume();
    }),
    abort() {
      aborted = true;
      req.destroy();
    },
  };
}
