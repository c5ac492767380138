/**
 * The protected side of the WebSocket server: the upgrade request's token, checked before the
 * upgrade is accepted, and per message the scopes of the tool, resource or prompt it uses.
 */
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type pino from 'pino';
import { ErrorCode } from '../../jsonrpc/errors';
import { errorResponse } from '../../jsonrpc/message';
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/message';
import { missingScopes } from '../http/caller';
import type { ScopeRule } from '../http/caller';
import type { AuthOutcome, AuthRefusal, RequestAuthenticator } from '../http/request-auth';
import type { AuthInfo } from '../transport';

/** What a protected connection checks while it runs (see `WebSocketConnection`). */
export interface ConnectionGuard {
  /** Who the upgrade's token named: the transport's `auth`. The socket closes when it expires. */
  readonly caller: AuthInfo;
  /**
   * What of an inbound frame may reach the transport: the frame, the requests of a batch that
   * the caller may make, or undefined for nothing. Each request held back was answered through
   * `reply` with an error; none of them reaches a handler.
   */
  admit(frame: unknown, reply: (message: JsonRpcMessage | readonly JsonRpcMessage[]) => void): unknown;
}

/** The WebSocket close code of a connection whose token expired (RFC 6455 §7.4.1: policy violation). */
export const TOKEN_EXPIRED_CLOSE_CODE = 1008;

/**
 * Checks the upgrade request's `Authorization` header with `auth`. Resolves with the verified
 * caller, or with undefined once the refusal was written to the socket (401 or 403 with the
 * `WWW-Authenticate` challenge and an OAuth error body) and the socket ended: no connection opens.
 */
export async function authenticateUpgrade(
  auth: RequestAuthenticator,
  req: IncomingMessage,
  socket: Duplex,
  log: pino.Logger,
): Promise<AuthInfo | undefined> {
  // Node leaves an upgrading socket without an error listener: one failing while the token is
  // checked, or while a refusal is written to a peer that left, must not throw.
  const ignore = (): void => undefined;
  socket.on('error', ignore);
  const outcome = await auth.authenticate(req.headers).catch((): AuthOutcome => ({
    ok: false,
    status: 401,
    wwwAuthenticate: 'Bearer',
    error: 'invalid_token',
    description: 'the token could not be checked',
  }));
  if (outcome.ok) {
    // `ws` listens for errors itself from here on.
    socket.off('error', ignore);
    return outcome.info;
  }
  log.warn({ status: outcome.status, error: outcome.error, reason: outcome.description }, 'upgrade refused');
  refuseUpgrade(socket, outcome);
  return undefined;
}

/** Answers an upgrade request the resource server refused, as `answerRefusal` answers an HTTP one. */
function refuseUpgrade(socket: Duplex, refusal: AuthRefusal): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ error: refusal.error ?? 'unauthorized', error_description: refusal.description });
  // A header value never carries a line break (the challenge quotes what a verifier said).
  const challenge = refusal.wwwAuthenticate.replace(/[\r\n]+/g, ' ');
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}\r\n` +
      `www-authenticate: ${challenge}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * The guard of a connection opened by `caller`. With `rule` (the server's `requiredScopes`), a
 * request whose tool, resource or prompt needs a scope the token lacks is answered with
 * `ErrorCode.Forbidden` (-32003: MCP defines no code for it, and the `authorize` middleware uses
 * this one), `data: { error: 'insufficient_scope', scope }` naming the scopes to ask for (those
 * held and those lacking, as a 403 challenge does); the other requests of a batch go on.
 */
export function connectionGuard(caller: AuthInfo, rule: ScopeRule | undefined): ConnectionGuard {
  if (rule === undefined) return { caller, admit: (frame) => frame };
  return {
    caller,
    admit(frame, reply) {
      if (!Array.isArray(frame)) {
        const refusal = refusalOf(caller, rule, frame);
        if (refusal === undefined) return frame;
        if (refusal !== null) reply(refusal);
        return undefined;
      }
      const admitted: unknown[] = [];
      const refusals: JsonRpcMessage[] = [];
      for (const item of frame) {
        const refusal = refusalOf(caller, rule, item);
        if (refusal === undefined) admitted.push(item);
        else if (refusal !== null) refusals.push(refusal);
      }
      if (refusals.length > 0) reply(refusals);
      return admitted.length === frame.length ? frame : admitted.length > 0 ? admitted : undefined;
    },
  };
}

/**
 * The error answering a message that needs a scope `caller` lacks; null for such a message that
 * takes no answer (no valid id); undefined for a message that may go on.
 */
function refusalOf(caller: AuthInfo, rule: ScopeRule, item: unknown): JsonRpcMessage | null | undefined {
  const lacking = missingScopes(caller, rule, [item]);
  if (lacking.length === 0) return undefined;
  const { id, method } = item as { id?: unknown; method: string };
  if (typeof id !== 'string' && typeof id !== 'number') return null;
  return errorResponse(id as RequestId, {
    code: ErrorCode.Forbidden,
    message: `Forbidden: ${method} needs the scope${lacking.length > 1 ? 's' : ''} ${lacking.join(' ')}`,
    data: { error: 'insufficient_scope', scope: [...new Set([...caller.scopes, ...lacking])].join(' ') },
  });
}
