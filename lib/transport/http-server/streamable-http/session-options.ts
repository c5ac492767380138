import type pino from 'pino';
import type { ImpliedInitialize, TransportClose } from '../../transport';
import type { EventStore } from './event-store';

/** What the handler needs to build a session. Internal to the transport layer. */
export interface SessionOptions {
  readonly sessionId: string | undefined;
  readonly eventStore: EventStore | undefined;
  readonly retryMs: number;
  readonly maxBufferedBytes: number;
  readonly maxHeldMessages: number;
  /**
   * How long a POST's answer waits to be one JSON body: a response that is the first and last
   * message for its POST answers `application/json`; anything else first, or this much time passing,
   * opens the SSE stream. 0: always SSE at once. Infinity: no deadline.
   */
  readonly jsonWindowMs: number;
  readonly logger: pino.Logger;
  /** The session starts initialized, as if this had been its initialize (sessionless mode). */
  readonly impliedInitialize?: ImpliedInitialize;
  /** The number after which the session's new streams are numbered (a resumed session's). Default 0. */
  readonly firstStream?: number;
  /** Called once, when the session closes. */
  readonly onClose: (close: TransportClose) => void;
  /** Called when the number of open HTTP responses changes. */
  readonly onConnectionsChange: (open: number) => void;
}
