import type { IncomingMessage, ServerResponse } from 'node:http';
import { classify } from '../../jsonrpc/classify';
import { ErrorCode } from '../../jsonrpc/errors';
import { checkHostAndOrigin, readJsonBody, refuse } from '../http/http-guards';
import type { OriginPolicy } from '../http/http-guards';
import { childLogger } from '../../jsonrpc/logger';
import type { LoggerOption } from '../../jsonrpc/logger';
import { LegacySseSession } from './legacy-sse-session';
import type { LegacySseServerTransport, LegacySseSessionSettings } from './legacy-sse-session';

/** Options of {@link createLegacySseHandler}. */
export interface LegacySseHandlerOptions extends OriginPolicy {
  /** Called with the transport of each new SSE connection (each session). */
  readonly onSession: (transport: LegacySseServerTransport) => void;
  /**
   * The path (or URL) of the POST endpoint, announced in the `endpoint` event with
   * `?sessionId=<id>` appended. Default `/messages`.
   */
  readonly messagesPath?: string;
  /** The largest POST body accepted; larger ones get 413. Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * A session whose SSE stream has more than this many bytes waiting unsent (a client that does not
   * read) is closed, so that it cannot make the server buffer without bound. Default 8 MiB.
   */
  readonly maxBufferedBytes?: number;
  /**
   * How often an idle SSE stream gets a comment line, so that proxies keep it open and a peer that
   * vanished is noticed when the write fails. Default 30 s; 0 sends none.
   */
  readonly keepAliveMs?: number;
  /** Sessions opened/closed at info, refusals at warn, messages at trace. Silent by default. */
  readonly logger?: LoggerOption;
}

export type { LegacySseServerTransport } from './legacy-sse-session';

/** The 2024-11-05 HTTP+SSE endpoints for `node:http`. */
export interface LegacySseHandler {
  /**
   * Serves both endpoints: GET opens the SSE stream (a new session), POST delivers a message to
   * the session named by `?sessionId=`; other methods get 405. Mount it on the SSE path and on
   * `messagesPath`. Pass `parsedBody` when a body parser already consumed the body.
   */
  readonly handle: (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => void;
  readonly sessions: ReadonlyMap<string, LegacySseServerTransport>;
  /** Closes every session (ending their SSE streams). */
  close(): void;
}

/**
 * Creates the server side of the deprecated HTTP+SSE transport (spec 2024-11-05: Transports →
 * HTTP with SSE), for clients that predate Streamable HTTP. A GET opens an SSE stream whose first
 * event, `endpoint`, names the POST URL with the session id; server messages follow as `message`
 * events. Each POST carries one message (or batch) and is answered 202 at once. The session ends
 * when the SSE connection closes (from either side), when its transport is closed, or when more
 * than `maxBufferedBytes` wait unsent on its stream (reason `'slow reader'`). An idle stream gets a
 * comment line every `keepAliveMs`.
 *
 * Refusals: 403 Host/Origin (see {@link OriginPolicy}), 415 not JSON, 413 too large, 400
 * unparsable or not JSON-RPC, 400 no `sessionId`, 404 unknown session, 405 other methods.
 */
export function createLegacySseHandler(options: LegacySseHandlerOptions): LegacySseHandler {
  const log = childLogger(options.logger, { component: 'transport', transport: 'legacy-sse-server' });
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const sessions = new Map<string, LegacySseSession>();
  const transports = new Map<string, LegacySseServerTransport>();
  const settings: LegacySseSessionSettings = {
    messagesPath: options.messagesPath ?? '/messages',
    maxBufferedBytes: options.maxBufferedBytes ?? 8 * 1024 * 1024,
    keepAliveMs: options.keepAliveMs ?? 30_000,
    log,
    forget: (sessionId) => {
      sessions.delete(sessionId);
      transports.delete(sessionId);
    },
  };

  function openStream(res: ServerResponse): void {
    const session = new LegacySseSession(res, settings);
    session.open();
    sessions.set(session.sessionId, session);
    transports.set(session.sessionId, session.transport);
    session.log.info('session opened');
    options.onSession(session.transport);
  }

  return {
    handle(req, res, parsedBody) {
      const refusal = checkHostAndOrigin(req, options);
      if (refusal !== undefined) {
        log.warn({ host: req.headers.host, origin: req.headers.origin }, refusal);
        refuse(res, 403, `Forbidden: ${refusal}`);
        return;
      }
      if (req.method === 'GET') openStream(res);
      else if (req.method === 'POST') {
        receive(req, res, parsedBody, sessions, maxBodyBytes).catch((error: unknown) => {
          log.error({ err: error }, 'POST failed');
          refuse(res, 500, 'Internal Server Error', ErrorCode.InternalError);
        });
      } else
        refuse(res, 405, `Method Not Allowed: ${req.method ?? ''}`, ErrorCode.ConnectionClosed, { allow: 'GET, POST' });
    },
    sessions: transports,
    close() {
      for (const { transport } of [...sessions.values()]) transport.close('server closed');
    },
  };
}

// Delivers a POSTed message to the session named by its `sessionId` query parameter.
async function receive(
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody: unknown,
  sessions: ReadonlyMap<string, LegacySseSession>,
  maxBodyBytes: number,
): Promise<void> {
  const sessionId = new URL(req.url ?? '/', 'http://localhost').searchParams.get('sessionId');
  if (sessionId === null) {
    refuse(res, 400, 'Bad Request: the sessionId query parameter is required');
    return;
  }
  const session = sessions.get(sessionId);
  if (!session) {
    refuse(res, 404, 'Session not found');
    return;
  }
  const read = await readJsonBody(req, res, parsedBody, maxBodyBytes);
  if (!read.ok) return;
  const body = read.body;
  const kind = classify(body).kind;
  if (kind === 'invalid' || (Array.isArray(body) && body.length === 0)) {
    refuse(res, 400, 'Invalid request: not a JSON-RPC message', ErrorCode.InvalidRequest);
    return;
  }
  res.writeHead(202, { 'content-type': 'text/plain' }).end('Accepted');
  session.push(body);
}
