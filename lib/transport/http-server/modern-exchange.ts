import { endJson, unrefTimer } from '../http/http-exchange';
import type { HttpRequestLike, HttpResponseLike, TimerHandle } from '../http/http-exchange';
import { verifiedCallers } from '../http/request-auth';
import type { IncomingHttpHeaders } from 'node:http';
import type pino from 'pino';
import { ErrorCode } from '../../jsonrpc/errors';
import { errorResponse } from '../../jsonrpc/message';
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../../jsonrpc/message';
import { isPlainObject } from '../../schema/fast-paths';
import { META } from '../../schema/request-meta';
import { encodeMessage } from '../framing/encode';
import { encodeSseEvent } from '../framing/sse';
import { isBacklogged } from '../transport';
import type { AuthInfo, ModernExchange, ModernReceiver } from '../transport';
import { headerValue } from '../http/http-guards';

/**
 * Methods whose `Mcp-Name` header mirrors `params.name` or `params.uri`, and the tasks extension's
 * methods, where it mirrors `params.taskId` (SEP-2663: Streamable HTTP routing headers).
 */
const NAMED: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  // Spec 2026-07-28: Transports → Receiving Messages: reverse proxies must not buffer the stream.
  'x-accel-buffering': 'no',
};

/** A header value an HTTP field may carry as it is: visible ASCII, spaces and tabs (RFC 9110). */
const PLAIN_VALUE = /^[\x20-\x7e\t]*$/;
const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
const UTF8 = new TextDecoder();

/**
 * Decodes a header value that may use the Base64 sentinel (`=?base64?…?=`) of the modern
 * revisions (spec 2026-07-28: Transports → Value Encoding); undefined when it is malformed.
 */
export function decodeHeaderValue(value: string): string | undefined {
  const encoded = SENTINEL.exec(value);
  if (encoded) {
    // Strict Base64: whole quanta, padding included.
    if (encoded[1]!.length % 4 !== 0) return undefined;
    try {
      return UTF8.decode(Uint8Array.from(atob(encoded[1]!), (char) => char.charCodeAt(0)));
    } catch {
      return undefined;
    }
  }
  return PLAIN_VALUE.test(value) ? value : undefined;
}

/** The requirement a modern POST's standard headers break, if any (spec 2026-07-28: Transports → Server Validation). */
export function headerMismatch(req: HttpRequestLike, message: JsonRpcRequest): string | undefined {
  const meta = message.params?._meta;
  const declared = isPlainObject(meta) ? meta[META.protocolVersion] : undefined;
  const version = headerValue(req, 'mcp-protocol-version');
  if (version === undefined) return 'the MCP-Protocol-Version header is required';
  if (typeof declared === 'string' && version !== declared) {
    return `MCP-Protocol-Version header value '${version}' does not match _meta value '${declared}'`;
  }
  const method = headerValue(req, 'mcp-method');
  if (method === undefined) return 'the Mcp-Method header is required';
  if (method !== message.method)
    return `Mcp-Method header value '${method}' does not match body value '${message.method}'`;
  const field = NAMED[message.method];
  if (field === undefined) return undefined;
  const raw = headerValue(req, 'mcp-name');
  if (raw === undefined) return `the Mcp-Name header is required for ${message.method}`;
  const name = decodeHeaderValue(raw);
  if (name === undefined) return 'the Mcp-Name header value is malformed';
  const body = message.params?.[field];
  if (name !== body) return `Mcp-Name header value '${name}' does not match body value '${String(body)}'`;
  return undefined;
}

/** Options of {@link serveModernPost}. */
export interface ModernPostOptions {
  readonly log: pino.Logger;
  /** An SSE response whose unsent output grows past this many bytes (a slow reader) is closed. */
  readonly maxBufferedBytes: number;
  /** A comment line on a quiet SSE stream this often keeps intermediaries from closing it. */
  readonly keepAliveMs: number;
}

/**
 * Serves one POST of a modern revision: its standard headers are checked (-32020, 400), then the
 * receiver answers it. The answer is one JSON body when the response is the first message, or an
 * SSE stream when a notification comes first (progress, log messages, a listen stream); streams
 * have no event ids and cannot be resumed (spec 2026-07-28: Transports). The client closing the
 * response cancels the request.
 */
export function serveModernPost(
  req: HttpRequestLike,
  res: HttpResponseLike,
  message: JsonRpcMessage,
  receiver: ModernReceiver,
  options: ModernPostOptions,
): void {
  if (!('id' in message) || !('method' in message)) {
    receiver.serve(message, { notify: () => undefined, respond: () => undefined });
    res.writeHead(202).end();
    return;
  }
  const request = message as JsonRpcRequest;
  const mismatch = headerMismatch(req, request);
  if (mismatch !== undefined) {
    options.log.warn({ id: request.id, method: request.method, mismatch }, 'modern request refused: header mismatch');
    writeJson(
      res,
      400,
      errorResponse(request.id, { code: ErrorCode.HeaderMismatch, message: `Header mismatch: ${mismatch}` }),
    );
    return;
  }
  new PostExchange(req, res, request.id, receiver, options).start(request);
}

/**
 * The HTTP status of an answer a handler gave: the errors the modern revisions give a status
 * (spec 2026-07-28: a missing client capability, a header mismatch or an unsupported version are
 * 400; an unknown method is 404), 200 otherwise.
 */
function statusOf(message: JsonRpcMessage): number {
  const code = (message as { error?: { code?: unknown } }).error?.code;
  if (
    code === ErrorCode.HeaderMismatch ||
    code === ErrorCode.MissingRequiredClientCapability ||
    code === ErrorCode.UnsupportedProtocolVersion
  ) {
    return 400;
  }
  return code === ErrorCode.MethodNotFound ? 404 : 200;
}

function writeJson(res: HttpResponseLike, status: number, body: JsonRpcMessage): void {
  const text = JSON.stringify(body);
  endJson(res, status, text);
}

/** The answer to one modern POST: JSON or an SSE stream, decided by its first message. */
class PostExchange implements ModernExchange {
  readonly headers: IncomingHttpHeaders;
  readonly auth: AuthInfo | undefined;
  private streaming = false;
  private done = false;
  private cancel: (() => void) | undefined;
  private keepAlive: TimerHandle | undefined;

  constructor(
    req: HttpRequestLike,
    private readonly res: HttpResponseLike,
    private readonly id: RequestId,
    private readonly receiver: ModernReceiver,
    private readonly options: ModernPostOptions,
  ) {
    this.headers = req.headers;
    this.auth = verifiedCallers.get(req);
  }

  start(request: JsonRpcRequest): void {
    // Spec 2026-07-28: Transports → Cancellation: the client closing the response cancels the request.
    this.res.on('close', () => {
      if (this.done) return;
      this.finish();
      this.options.log.debug({ id: this.id }, 'modern request cancelled: the client closed its response');
      this.cancel?.();
    });
    const cancel = this.receiver.serve(request, this);
    if (this.done) return;
    this.cancel = cancel;
  }

  notify(message: JsonRpcMessage, options?: { readonly droppable?: boolean }): void {
    if (this.done) return;
    // A message the client may miss waits for no slow reader (see `SendOptions.droppable`).
    if (options?.droppable && isBacklogged(this.res.writableLength, this.options.maxBufferedBytes)) return;
    // A message JSON cannot write throws here, before the answer is started (see `encodeMessage`).
    const text = encodeMessage(message);
    if (!this.streaming) {
      this.streaming = true;
      this.res.writeHead(200, SSE_HEADERS);
      this.armKeepAlive();
    }
    this.write(text);
  }

  respond(message: JsonRpcMessage, httpStatus?: number): void {
    if (this.done) return;
    const text = encodeMessage(message);
    if (!this.streaming) {
      this.finish();
      endJson(this.res, httpStatus ?? statusOf(message), text);
      return;
    }
    this.write(text);
    this.finish();
    this.res.end();
  }

  private write(text: string): void {
    this.res.write(encodeSseEvent({ data: text }));
    this.armKeepAlive();
    if (this.res.writableLength > this.options.maxBufferedBytes) {
      this.options.log.warn(
        { id: this.id, buffered: this.res.writableLength },
        'modern stream closed: the client does not read it',
      );
      this.res.destroy();
    }
  }

  private armKeepAlive(): void {
    if (!Number.isFinite(this.options.keepAliveMs)) return;
    // Restarted on each write (not `refresh()`, which only Node's timers have).
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = unrefTimer(setInterval(() => this.res.write(':\n\n'), this.options.keepAliveMs));
  }

  private finish(): void {
    this.done = true;
    if (this.keepAlive) clearInterval(this.keepAlive);
  }
}
