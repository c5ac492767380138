import { Observable } from '../rx/rxjs';
import { ConnectionClosedError, UnsupportedProtocolVersionError } from '../jsonrpc/errors';
import { LATEST_LEGACY_REVISION } from '../schema/revisions';
import type { ConnectionCore } from './connection-core';
import { sendRequest } from './request-pipeline';
import type { RequesterDeps } from './request-pipeline';
import { isModernRevision, META } from './modern';

/** What `server/discover` told a client that enters a modern revision. */
export interface DiscoveredServer {
  readonly capabilities?: Record<string, unknown>;
  readonly serverInfo?: Record<string, unknown>;
  readonly instructions?: string;
}

type ClientCore = ConnectionCore & RequesterDeps;

/** The `_meta` every request of a modern revision carries: the revision, our capabilities and info. */
export function modernRequestMeta(conn: ConnectionCore, revision: string): Record<string, unknown> {
  return {
    [META.protocolVersion]: revision,
    [META.clientCapabilities]: conn.capabilities(),
    [META.clientInfo]: conn.options.info,
  };
}

/**
 * `Connection.useModern`: the client speaks a modern revision from now on, with no handshake.
 * The lifecycle decides: it enters `modern` only for a modern revision the client speaks.
 */
export function enterModern(conn: ConnectionCore, revision: string, server: DiscoveredServer): void {
  if (conn.closed) throw new ConnectionClosedError(conn.closeReason, { method: 'useModern' });
  if (!conn.maySendInitialize) throw new Error('useModern() must come before any handshake, once per connection');
  conn.sendLifecycle({ type: 'local.modern', protocolVersion: revision, ...server });
  if (conn.revision !== revision) {
    throw new UnsupportedProtocolVersionError(revision, conn.supportedAll.filter(isModernRevision));
  }
  conn.log.info({ revision, server: conn.peerInfo }, 'modern revision in use');
}

/** Why `initialize()` may not run now, if it may not (a server's connection is refused before: see client-part.ts). */
function initializeRefusal(conn: ConnectionCore): Error | undefined {
  if (conn.closed) return new ConnectionClosedError(conn.closeReason, { method: 'initialize' });
  if (!conn.maySendInitialize) return new Error('initialize() may be called once per connection');
  return undefined;
}

/**
 * `Connection.initialize`: the client's handshake. Cold; sends initialize, takes the server's
 * answer (or disconnects when it names a revision we do not speak), sends
 * notifications/initialized and emits the result once the connection is operating.
 */
export function runClientHandshake(conn: ClientCore): Observable<Record<string, unknown>> {
  return new Observable<Record<string, unknown>>((subscriber) => {
    const refusal = initializeRefusal(conn);
    if (refusal) {
      subscriber.error(refusal);
      return undefined;
    }
    conn.sendLifecycle({ type: 'local.initialize' });
    const params = {
      protocolVersion: conn.options.protocolVersion ?? conn.supported.at(-1) ?? LATEST_LEGACY_REVISION,
      capabilities: conn.capabilities(),
      clientInfo: conn.options.info,
    };
    // Lifecycle → Initialization: the client MUST NOT cancel its initialize request.
    return sendRequest(conn, 'initialize', params, {}, false).subscribe({
      next: (result) => {
        const version = String(result.protocolVersion);
        conn.sendLifecycle({
          type: 'peer.initializeResult',
          protocolVersion: version,
          capabilities: result.capabilities as Record<string, unknown>,
          serverInfo: result.serverInfo as Record<string, unknown>,
          instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
        });
        if (conn.closed) {
          // Lifecycle → Version Negotiation: the lifecycle refused the answer, and the client disconnected.
          subscriber.error(new UnsupportedProtocolVersionError(version, conn.supported));
          return;
        }
        conn.notify('notifications/initialized');
        conn.sendLifecycle({ type: 'local.initialized' });
        // The handshake's deadline was the only one: a client that then waits holds no timer (the
        // next request arms it again).
        if (conn.deadlines.size === 0) conn.deadlines.stop();
        conn.log.info({ revision: conn.revision, server: conn.peerInfo }, 'initialized');
        subscriber.next(result);
        subscriber.complete();
      },
      error: (error: unknown) => {
        const reason = `initialize failed: ${error instanceof Error ? error.message : String(error)}`;
        conn.sendLifecycle({ type: 'peer.initializeFailed', reason });
        subscriber.error(error);
      },
    });
  });
}
