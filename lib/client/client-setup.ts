import type { Logger } from 'pino';
import type { Observable } from '../rx/rxjs';
import type { Connection } from '../connection/connection';
import type { RequestHandler } from '../connection/dispatcher';
import type { Root } from '../schema/roots';
import type { Reconnection } from '../transport/http-client/streamable-http/session-renewal';
import type { ClientRevision, ClientOptions, ServerEra } from './client-api';
import type { SchemaCheck } from './schema-checks';

/** What `connect` hands the client once the era is settled. */
export interface ClientSetup {
  readonly connection: Connection;
  readonly options: ClientOptions;
  readonly era: ServerEra;
  readonly revision: ClientRevision;
  readonly serverInfo: Record<string, unknown> | undefined;
  /** What the server declared; undefined when a modern server said nothing (nothing is refused then). */
  readonly serverCapabilities: Record<string, unknown> | undefined;
  readonly instructions: string | undefined;
  readonly log: Logger;
  readonly check: SchemaCheck;
  /** The client's sampling, elicitation and roots handlers, by method (they answer input requests). */
  readonly inputHandlers: Readonly<Record<string, RequestHandler>>;
  readonly replaceRoots: (roots: readonly Root[]) => void;
  /** The new sessions the transport starts in place of lost ones (Streamable HTTP). */
  readonly reconnected$: Observable<Reconnection>;
}
