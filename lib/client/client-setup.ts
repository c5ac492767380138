import type { Logger } from 'pino';
import type { Observable, Subscription } from '../rx/rxjs';
import type { Connection } from '../connection/connection';
import type { RequestHandler } from '../connection/dispatcher';
import type { LoggingMessageNotificationParams } from '../schema/logging';
import type { Prompt } from '../schema/prompts';
import type { Resource, ResourceTemplate } from '../schema/resources';
import type { Root } from '../schema/roots';
import type { Tool } from '../schema/tools';
import type { Reconnection } from '../transport/http-client/streamable-http/session-renewal';
import type { ClientRevision, ClientOptions, McpClientPromises, ServerEra } from './client-api';
import type { ResourceWatcher } from './resource-watcher';
import type { SubscriptionHub } from './subscriptions';
import type { createClientTasks } from './tasks/client-tasks';
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

/** What a client makes on first use, if ever. */
export type LazyParts = Partial<{
  tools$: Observable<readonly Tool[]>;
  resources$: Observable<readonly Resource[]>;
  resourceTemplates$: Observable<readonly ResourceTemplate[]>;
  prompts$: Observable<readonly Prompt[]>;
  logMessages$: Observable<LoggingMessageNotificationParams>;
  elicitationComplete$: Observable<{ elicitationId: string }>;
  promises: McpClientPromises;
  resourceWatcher: ResourceWatcher;
  hub: SubscriptionHub;
  tasks: ReturnType<typeof createClientTasks>;
  /** Sets the log level again on each new session, once a level was set. */
  levelRestore: Subscription;
}>;
