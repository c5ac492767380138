/**
 * Reading the answer to a Streamable HTTP POST on the client side: an SSE stream, a JSON body, or
 * a refusal; each within the client's `maxMessageLength` (#13), so that a server cannot make the
 * client buffer without bound.
 */
import type pino from 'pino';
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/message';
import { BodyTooLargeError } from '../http-requester';
import type { HttpAnswer } from '../http-requester';
import { keyOf } from '../../http/request-keys';
import type { SseStreams } from './sse-streams';

/** The largest message the client reads by default: 32 Mi characters. */
export const DEFAULT_MAX_MESSAGE_LENGTH = 32 * 1024 * 1024;
/** A refusal's body is read for its JSON-RPC error only, up to this many characters. */
const MAX_REFUSAL_LENGTH = 64 * 1024;

/** What answer reading needs from the client transport. */
export interface AnswerHost {
  readonly log: pino.Logger;
  readonly url: URL;
  readonly sessionId: string | undefined;
  readonly streams: SseStreams;
  readonly maxMessageLength: number;
  readonly onHttpSseServer: ((initialize: JsonRpcMessage, status: number) => void) | undefined;
  emitText(text: string): unknown;
  /** Delivers one parsed message (or batch) as if it had arrived on a stream. */
  emit(frame: unknown): void;
  failRequests(ids: readonly RequestId[], status: number, body: string): void;
  /** Fails the requests of a POST answered with success in a content type that is not MCP's. */
  failNotMcp(ids: readonly RequestId[], status: number, type: string, why?: string): void;
  brokenStream(ids: readonly RequestId[]): void;
}

/** The POST whose answer is read. */
export interface PostedMessages {
  readonly list: readonly JsonRpcMessage[];
  readonly requests: ReadonlyArray<{ id: RequestId; method: string }>;
  /** The first `initialize`, sent before any session (the backwards-compatibility probe). */
  readonly firstInitialize: boolean;
  /** Sent in a modern revision: no resumption, a broken stream fails its requests. */
  readonly modern: boolean;
  /** The session id the POST carried, if any. */
  readonly session: string | undefined;
}

/**
 * Reads the answer to a POST and settles the requests it carried. Resolves true, with the requests
 * unsettled, when the server answered 404 to the session the POST carried (it ran none of them).
 */
export async function readAnswer(host: AnswerHost, response: HttpAnswer, posted: PostedMessages): Promise<boolean> {
  const type = response.header('content-type') ?? '';
  const ids = posted.requests.map((r) => r.id);
  if (!response.ok) return readRefusal(host, response, posted, ids);

  if (ids.length === 0) {
    // Notifications and responses: 202 is the rule, but some servers answer 200 with a body; ignore it.
    response.discard();
    return false;
  }
  if (type.includes('text/event-stream')) {
    const owed = new Set(ids.map(keyOf));
    const seen = await host.streams.read(response, owed);
    if (seen.tooLarge) host.streams.failTooLarge(owed);
    else if (posted.modern) host.brokenStream(ids);
    else host.streams.afterStream({ standalone: false, owed, attempt: 0, session: posted.session, ...seen });
    return false;
  }
  let body: string;
  try {
    body = await response.text(host.maxMessageLength);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    host.streams.failTooLarge(new Set(ids.map(keyOf)));
    return false;
  }
  if (type.includes('application/json')) {
    if (body.trim() !== '') {
      const frame = jsonRpcIn(body);
      if (frame === undefined) {
        host.log.warn(
          { url: host.url.href, status: response.status, type, body: body.slice(0, 200) },
          'the JSON answer is not JSON-RPC: is this the MCP endpoint URL?',
        );
        host.failNotMcp(ids, response.status, type, 'its body is not a JSON-RPC message');
        return false;
      }
      host.emit(frame);
    }
    if (posted.modern) host.brokenStream(ids);
    return false;
  }
  host.log.warn(
    { url: host.url.href, status: response.status, type, body: body.slice(0, 200) },
    'the answer is neither JSON nor SSE: is this the MCP endpoint URL?',
  );
  host.failNotMcp(ids, response.status, type);
  return false;
}

/**
 * The JSON-RPC message (or batch) a JSON answer holds; undefined when the body is not JSON, or is
 * JSON without the `"jsonrpc": "2.0"` of a JSON-RPC message (a REST API's `{"status":"ok"}`).
 */
function jsonRpcIn(body: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const isMessage = (item: unknown) =>
    typeof item === 'object' && item !== null && (item as { jsonrpc?: unknown }).jsonrpc === '2.0';
  const ok = Array.isArray(parsed) ? parsed.length > 0 && parsed.every(isMessage) : isMessage(parsed);
  return ok ? parsed : undefined;
}

async function readRefusal(
  host: AnswerHost,
  response: HttpAnswer,
  posted: PostedMessages,
  ids: readonly RequestId[],
): Promise<boolean> {
  const body = await response.text(Math.min(MAX_REFUSAL_LENGTH, host.maxMessageLength)).catch(() => '');
  if (
    posted.firstInitialize &&
    host.onHttpSseServer &&
    [400, 404, 405].includes(response.status) &&
    host.sessionId === undefined
  ) {
    host.onHttpSseServer(posted.list[0] as JsonRpcMessage, response.status);
    return false;
  }
  // A modern POST carries no session: its 404 is the server's answer to the request itself.
  if (!posted.modern && response.status === 404 && posted.session !== undefined) return true;
  host.log.warn({ status: response.status, body: body.slice(0, 500) }, 'POST refused');
  host.failRequests(ids, response.status, body);
  return false;
}
