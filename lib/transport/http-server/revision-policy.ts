import { endJson } from '../http/http-exchange';
import type { HttpRequestLike, HttpResponseLike } from '../http/http-exchange';
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';
import { errorResponse } from '../../jsonrpc/message';
import type { JsonRpcMessage } from '../../jsonrpc/message';
import { modernRevisionOf } from '../../schema/request-meta';
import { batchRefusal, isLegacyRevision, isModernRevision } from '../../schema/revisions';
import { headerValue, refuse } from '../http/http-guards';
import type { ModernReceiver } from '../transport';
import { SESSION_HEADER } from './streamable-http/session-table';

/** The header that names a request's protocol revision. */
export const VERSION_HEADER = 'mcp-protocol-version';

/**
 * The revisions an endpoint serves, and what they decide about a request: whether it belongs to
 * a modern revision, and whether its `MCP-Protocol-Version` is refused.
 */
export class RevisionPolicy {
  /** The handshake revisions served: the values accepted in `MCP-Protocol-Version` on session requests. */
  readonly supported: readonly string[];
  /** Whether any handshake revision is served: without one, no session is ever made. */
  readonly sessionsServed: boolean;

  constructor(readonly served: readonly string[]) {
    this.supported = served.filter(isLegacyRevision);
    this.sessionsServed = this.supported.length > 0;
  }

  /**
   * Refuses an unsupported `MCP-Protocol-Version` (400); any supported one is tolerated. The
   * refusal names the request's id when the body is one request (#11). A modern revision named by
   * what cannot be one of its requests (a batch, a response, a request in a session, a GET or a
   * DELETE) is refused for what it is, not as an unknown revision.
   */
  refused(req: HttpRequestLike, res: HttpResponseLike, body?: unknown): boolean {
    const supported = this.supported;
    const version = headerValue(req, VERSION_HEADER);
    if (version === undefined || supported.includes(version)) return false;
    const unsupported = `unsupported protocol version ${JSON.stringify(version)} (supported: ${supported.join(', ')})`;
    const reason = (isModernRevision(version) ? notModern(req, body, version) : undefined) ?? unsupported;
    const message = `Bad Request: ${reason}`;
    const request = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
    const { id, method } = request as { id?: unknown; method?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) {
      const text = JSON.stringify(errorResponse(id, { code: ErrorCode.InvalidRequest, message }));
      endJson(res, 400, text);
    } else refuse(res, 400, message);
    return true;
  }

  /**
   * Whether a POST belongs to a modern revision (there being a `receiver` to serve it): one
   * request (not initialize, no session id) whose `_meta` names a revision, or whose
   * `MCP-Protocol-Version` is not a handshake revision served here (an unsupported one is then
   * answered -32022 with the versions that are).
   */
  isModern(req: HttpRequestLike, body: unknown, receiver: ModernReceiver | undefined): body is JsonRpcMessage {
    if (!receiver || typeof body !== 'object' || body === null || Array.isArray(body)) return false;
    const method = (body as { method?: unknown }).method;
    if (typeof method !== 'string' || headerValue(req, SESSION_HEADER) !== undefined) return false;
    // An initialize that carries a modern `_meta` is a modern request for a removed method.
    if (modernRevisionOf((body as { params?: unknown }).params) !== undefined) return true;
    if (method === 'initialize') return false;
    const version = headerValue(req, VERSION_HEADER);
    return version !== undefined && !this.supported.includes(version);
  }

  /**
   * A deployment of modern revisions only answers a handshake-family POST with -32022 naming the
   * revisions it serves (spec 2026-07-28: Versioning → a modern-only server names its versions in
   * any error to initialize).
   */
  refuseHandshake(res: HttpResponseLike, body: unknown): void {
    const served = this.served;
    const message = body as { id?: unknown; params?: { protocolVersion?: unknown } };
    const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
    const requested = message.params?.protocolVersion ?? 'none';
    const error = {
      code: -32022,
      message: `Unsupported protocol version: this server keeps no sessions; it serves ${served.join(', ')}`,
      data: { supported: [...served].reverse(), requested },
    };
    endJson(res, 400, JSON.stringify(errorResponse(id, error)));
  }
}

/**
 * Why a message naming the modern revision `version` cannot be one of its requests, if that is the
 * trouble: a batch, a response, a request in a session, a GET or a DELETE. A lone request is
 * refused for its revision (an endpoint serving the modern revisions takes it before this).
 */
function notModern(req: HttpRequestLike, body: unknown, version: string): string | undefined {
  const noSessions = `protocol revision ${version} has no sessions`;
  if (body === undefined) return `${noSessions}: ${req.method ?? ''} serves the handshake revisions`;
  if (Array.isArray(body)) return batchRefusal(version);
  if (typeof (body as { method?: unknown } | null)?.method !== 'string')
    return `a client sends only requests and notifications under protocol revision ${version}`;
  if (headerValue(req, SESSION_HEADER) !== undefined) return `${noSessions}: send its requests without Mcp-Session-Id`;
  return undefined;
}

/**
 * Refuses (400, -32600) a batch in a session whose negotiated revision has no JSON-RPC batches
 * (every one but 2025-03-26): Streamable HTTP answers a body the server cannot accept with an HTTP
 * error status. A session not negotiated yet leaves the refusal to its connection.
 */
export function refusedBatch(res: HttpResponseLike, body: unknown, revision: string | undefined): boolean {
  const why = Array.isArray(body) && revision !== undefined ? batchRefusal(revision) : undefined;
  if (why === undefined) return false;
  const error = JsonRpcError.invalidRequest(why);
  refuse(res, 400, error.message, error.code);
  return true;
}
