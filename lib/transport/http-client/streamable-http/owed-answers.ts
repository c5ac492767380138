/**
 * The error responses a Streamable HTTP client transport makes up for requests that will get no
 * response from the server (a cut connection, a broken or too large stream, a refused POST), each
 * delivered once, as if the server had sent it. Client side only.
 */
import type pino from 'pino';
import { ErrorCode, TransportError } from '../../../jsonrpc/errors';
import { MalformedFrame } from '../../transport';
import type { RequestId } from '../../../jsonrpc/message';
import { brokenStreamResponse, notMcpResponse, refusalResponse } from './modern-calls';
import type { ModernCalls } from './modern-calls';
import { idOfKey, keyOf } from '../../http/request-keys';

/** The `data` of the error a request fails with when its connection or stream was cut. */
const CONNECTION_CUT: Readonly<Record<string, unknown>> = { connectionCut: true };

/** What the answers need from their transport. */
export interface OwedAnswersHost {
  readonly log: pino.Logger;
  readonly url: URL;
  readonly closing: boolean;
  /** Requests sent whose response has not arrived, by `keyOf` their id. */
  readonly pending: Set<string>;
  emit(frame: unknown): void;
}

/** Answers the requests the server will not answer. */
export class OwedAnswers {
  constructor(
    private readonly host: OwedAnswersHost,
    private readonly modern: ModernCalls,
  ) {}

  /** A request whose POST's connection was cut before any answer: its caller hears so at once. */
  cutRequest(id: RequestId, code: string): void {
    this.failPending(
      keyOf(id),
      id,
      `The connection was cut (${code}) before the server answered; the server may or may not have received the request, so it was not sent again`,
    );
  }

  failOwed(keys: ReadonlySet<string>, why: string, data?: Readonly<Record<string, unknown>>): void {
    for (const key of [...keys]) this.failPending(key, idOfKey(key), `Request failed: ${why}`, data);
  }

  /** Answers a pending request with a local error (code -32000, `data.connectionCut` unless given), once. */
  private failPending(key: string, id: RequestId, message: string, data: unknown = CONNECTION_CUT): void {
    if (!this.host.pending.delete(key)) return;
    this.host.emit({ jsonrpc: '2.0', id, error: { code: ErrorCode.ConnectionClosed, message, data } });
  }

  /** A modern answer ended without the response it owed: the caller re-issues the request. */
  brokenStream(ids: readonly RequestId[]): void {
    const { host } = this;
    for (const id of ids) {
      const key = keyOf(id);
      if (!host.pending.has(key)) continue;
      const cancelled = this.modern.forget(key);
      if (host.closing || cancelled) continue;
      host.log.debug({ id }, 'response stream ended before its response');
      host.emit(brokenStreamResponse(id));
    }
  }

  /** Fails the requests of a POST the server refused, so their callers hear about it at once. */
  failRequests(ids: readonly RequestId[], status: number, body: string): void {
    for (const id of ids) if (this.host.pending.has(keyOf(id))) this.host.emit(refusalResponse(id, status, body));
  }

  failNotMcp(ids: readonly RequestId[], status: number, type: string, why?: string): void {
    const { host } = this;
    for (const id of ids) if (host.pending.has(keyOf(id))) host.emit(notMcpResponse(id, host.url, status, type, why));
  }
}

/** The error a transport closes with when reconnecting failed `attempts` times without an HTTP answer. */
export function unreachableError(url: URL, cause: unknown, attempts: number): TransportError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new TransportError(
    `The server at ${url.href} stopped answering: ${attempts} attempts to reconnect failed, the last with ${why}`,
    { cause },
  );
}

/** One SSE event's data as a frame: the parsed JSON, or a `MalformedFrame` (logged) when it is not JSON. */
export function parseEvent(text: string, log: pino.Logger): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    log.warn({ reason: (error as Error).message }, 'server sent an event that is not JSON');
    return new MalformedFrame(text.slice(0, 1000), (error as Error).message);
  }
}
