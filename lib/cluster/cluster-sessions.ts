import type pino from 'pino';
import type { McpServer } from '../server/server';
import type { PersistedSession } from '../server/server-context';
import type { StreamableHttpServerTransport } from '../transport/http-server/streamable-http/streamable-http-session';
import type { AuthInfo } from '../transport/transport';
import type { BusLog } from './bus-log';
import type { SessionRecord, SessionRegistry } from './session-registry';

/**
 * Connects a process's sessions to its server: new ones, and ones taken over from another process
 * (resumed from their persisted state). Each session's state is written to Redis when it starts
 * operating and before the answer to a request that changed it (log level, subscriptions); its
 * record goes when it ends, unless the process is leaving (then other processes carry it on).
 */
export class ClusterSessions {
  /** Set while the process leaves: sessions that close then are kept in Redis. */
  leaving = false;

  constructor(
    private readonly server: McpServer,
    private readonly registry: SessionRegistry,
    private readonly busLog: BusLog,
    private readonly log: pino.Logger,
  ) {}

  /**
   * Connects `transport` to the server: a new session, or one taken over (`taken`: its record, with
   * the state it persisted). A taken-over session's transport gets `opener`, the verified caller of
   * the request that took it over (the same principal as the caller that opened it), as the caller
   * it belongs to, and is sent the cluster-wide events its owner missed. The notifications a
   * relayed cluster-wide event becomes are stored with the event's id.
   */
  connect(
    transport: StreamableHttpServerTransport,
    taken: (SessionRecord & { readonly state: PersistedSession }) | undefined,
    opener?: AuthInfo | undefined,
  ): void {
    const restore = taken?.state;
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      this.busLog.sending(message);
      send(message, options);
    };
    if (opener) (transport as { auth?: AuthInfo }).auth = opener;
    const sessionId = transport.sessionId;
    if (sessionId === undefined) {
      this.server.connect(transport);
      return;
    }
    const { registry, log } = this;
    this.server.connect(transport, {
      ...(restore ? { restore } : {}),
      onChange: (session) =>
        registry
          .persist(sessionId, session.persist())
          .catch((error: unknown) => log.error({ err: error, sessionId }, 'cannot persist a session')),
    });
    if (taken)
      this.busLog
        .replay(sessionId, taken.state, taken.bus, transport)
        .catch((error: unknown) => log.error({ err: error, sessionId }, 'cannot send a session the events it missed'));
    transport.closed$.subscribe(() => {
      if (this.leaving) return;
      registry
        .forget(sessionId)
        .catch((error: unknown) => log.error({ err: error, sessionId }, 'cannot forget a session'));
    });
  }
}
