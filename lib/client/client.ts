import type { Logger } from 'pino';
import { PARTIAL_RESULTS_EXTENSION } from '../connection/partial-results';
import { EMPTY, firstValueFrom, isObservable } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import { createConnection } from '../connection/create-connection';
import type { Connection } from '../connection/connection';
import { isModernRevision } from '../connection/modern';
import { childLogger } from '../base/logger';
import { isLegacyRevision, SUPPORTED_REVISIONS } from '../schema/revisions';
import type { Revision } from '../schema/revisions';
import type { Transport } from '../transport/transport';
import type { Reconnection } from '../transport/http-client/streamable-http/session-renewal';
import type { ClientOptions, ClientRevision, McpClient } from './client-api';
import { handshakeCapabilities, withExtensions } from './extensions';
import { ClientConnectionOptions } from './client-connection-options';
import { Client } from './mcp-client';
import type { ClientSetup } from './mcp-client';
import { clientOutbound } from './middleware';
import type { ClientMiddlewareContext } from './middleware';
import { LegacyServerError, negotiateEra, revisionFamilies } from './negotiation';
import type { EraDecision } from './negotiation';
import { createSchemaCheck, defaultSchemaCheck } from './schema-checks';
import type { SchemaCheck } from './schema-checks';
import { installServerRequestHandlers, serverRequestHandlers } from './server-requests';
import { receiverCapabilities, taskReceivingHandlers } from './tasks/task-receiver';
import { TASKS_EXTENSION } from './tasks/task-wire';
import type { ServerRequestHandlers } from './server-requests';

export type { ClientOptions, ClientRevision, McpClient, McpClientPromises, ServerEra } from './client-api';

/** How long the era probe waits for `server/discover` before deciding the server is legacy. */
export const DEFAULT_DISCOVER_TIMEOUT_MS = 5000;

function mergeCapabilities(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = merged[key];
    const bothObjects = [current, value].every((v) => typeof v === 'object' && v !== null && !Array.isArray(v));
    merged[key] = bothObjects ? { ...(current as object), ...(value as object) } : value;
  }
  return merged;
}

/**
 * The modern revisions have no roots list-change notification: `roots` declares roots alone.
 * The tasks extension is declared there when the client enabled it (and never in a handshake).
 */
function modernCapabilities(declared: Record<string, unknown>, tasks?: boolean): Record<string, unknown> {
  const withTasks = tasks ? mergeCapabilities(declared, { extensions: { [TASKS_EXTENSION]: {} } }) : declared;
  const roots = withTasks.roots;
  if (typeof roots !== 'object' || roots === null) return withTasks;
  const { listChanged: _dropped, ...rest } = roots as Record<string, unknown>;
  return { ...withTasks, roots: rest };
}

/** What every step of `connect` shares. */
interface Preparation {
  readonly transport: Transport;
  readonly options: ClientOptions;
  readonly info: { name: string; version: string; title?: string };
  readonly log: Logger;
  readonly check: SchemaCheck;
  readonly serverRequests: ServerRequestHandlers;
  readonly declared: Record<string, unknown>;
  readonly revisions: readonly string[];
  /** Where the client is, once it exists (the connection's options): notifications reach it from then on. */
  ready: { client?: Client | undefined };
}

/** The era of a pinned handshake revision; undefined when the server must be asked. */
function pinnedHandshake(choice: ClientOptions['protocolVersion']): EraDecision | undefined {
  return choice !== undefined && choice !== 'auto' && isLegacyRevision(choice)
    ? { era: 'legacy', offer: choice, why: 'pinned' }
    : undefined;
}

/** Settles the era of an unpinned or modern choice by probing the server. */
async function decideEra(prep: Preparation): Promise<EraDecision> {
  const choice = prep.options.protocolVersion ?? 'auto';
  const { modern, legacy } = revisionFamilies(prep.revisions);
  const pinned = choice !== 'auto';
  if (pinned && !isModernRevision(choice))
    throw new RangeError(`protocolVersion ${JSON.stringify(choice)} is no revision rxmcp speaks`);
  const probe = {
    modern: pinned ? [choice] : modern,
    legacy: pinned ? [] : legacy,
    clientInfo: prep.info,
    capabilities: modernCapabilities(prep.declared, prep.options.tasks),
    timeoutMs: prep.options.discoverTimeoutMs ?? DEFAULT_DISCOVER_TIMEOUT_MS,
    scheduler: prep.options.scheduler,
    logger: prep.log,
  };
  const decision = await negotiateEra(prep.transport, probe);
  if (decision.era === 'legacy' && (pinned || legacy.length === 0)) {
    throw new LegacyServerError(pinned ? choice : (probe.modern.at(-1) ?? 'none'), decision.why);
  }
  return decision;
}

function newConnection(prep: Preparation, modern: boolean, offer?: string): Connection {
  const { options } = prep;
  const capabilities = modern
    ? modernCapabilities(prep.declared, options.tasks)
    : handshakeCapabilities(
        mergeCapabilities(prep.declared, options.tasks ? receiverCapabilities(prep.serverRequests.handlers) : {}),
        offer,
      );
  const outbound = options.middleware?.length ? clientOutbound(options.middleware, middlewareContext(prep)) : undefined;
  const connectionOptions = new ClientConnectionOptions(
    prep.transport,
    prep.info,
    capabilities,
    offer as Revision | undefined,
    !modern,
    prep.log,
    outbound,
    options,
  );
  prep.ready = connectionOptions;
  return createConnection(connectionOptions);
}

/** What client middleware sees of the client, read at each request. */
function middlewareContext(prep: Preparation): ClientMiddlewareContext {
  return {
    get revision() {
      return prep.ready.client?.revision;
    },
    get serverInfo() {
      return prep.ready.client?.serverInfo;
    },
    get sessionId() {
      return prep.transport.sessionId;
    },
  };
}

/** The handlers of the server's requests; with `tasks`, they take task-augmented ones too (2025-11-25). */
function receiving(prep: Preparation, connection: Connection): ServerRequestHandlers {
  if (!prep.options.tasks) return prep.serverRequests;
  const { scheduler } = prep.options;
  const options = { ...(scheduler ? { scheduler } : {}), closed$: connection.closed$, log: prep.log };
  return { ...prep.serverRequests, handlers: taskReceivingHandlers(prep.serverRequests.handlers, options) };
}

/** A legacy server: the `initialize` handshake, as every handshake revision opens. */
async function handshake(prep: Preparation, offer: string | undefined): Promise<Client> {
  const connection = newConnection(prep, false, offer);
  installServerRequestHandlers(connection, receiving(prep, connection));
  try {
    await firstValueFrom(connection.initialize());
  } catch (error) {
    connection.close('initialize failed');
    throw error;
  }
  return new Client(
    setupOf(prep, connection, {
      era: 'legacy',
      revision: connection.revision as Revision,
      serverInfo: connection.peerInfo,
      serverCapabilities: connection.peerCapabilities ?? {},
      instructions: connection.instructions,
    }),
  );
}

/** A modern server: no handshake; every request carries the revision and our capabilities. */
function modern(prep: Preparation, decision: EraDecision & { era: 'modern' }): Client {
  const connection = newConnection(prep, true);
  const { discovered } = decision;
  connection.useModern(decision.revision, {
    ...(discovered?.capabilities ? { capabilities: discovered.capabilities } : {}),
    ...(discovered?.serverInfo ? { serverInfo: discovered.serverInfo } : {}),
    ...(discovered?.instructions !== undefined ? { instructions: discovered.instructions } : {}),
  });
  return new Client(
    setupOf(prep, connection, {
      era: 'modern',
      revision: decision.revision as ClientRevision,
      serverInfo: discovered?.serverInfo,
      serverCapabilities: discovered?.capabilities,
      instructions: discovered?.instructions,
    }),
  );
}

/** The new sessions a transport starts in place of lost ones (Streamable HTTP); none for others. */
function reconnectionsOf(transport: Transport): Observable<Reconnection> {
  const reconnected$ = (transport as { reconnected$?: unknown }).reconnected$;
  return isObservable(reconnected$) ? (reconnected$ as Observable<Reconnection>) : EMPTY;
}

/**
 * A client's setup, spelled out rather than spread: a spread object holding closures gets a hidden
 * class of its own, which every idle client would then carry.
 */
function setupOf(
  prep: Preparation,
  connection: Connection,
  era: Pick<ClientSetup, 'era' | 'revision' | 'serverInfo' | 'serverCapabilities' | 'instructions'>,
): ClientSetup {
  const { serverRequests } = prep;
  return {
    connection,
    options: prep.options,
    era: era.era,
    revision: era.revision,
    serverInfo: era.serverInfo,
    serverCapabilities: era.serverCapabilities,
    instructions: era.instructions,
    log: prep.log,
    check: prep.check,
    inputHandlers: serverRequests.handlers,
    // An arrow of its own (see `serverRequestHandlers`): passed on as it is, with no closure around it.
    replaceRoots: serverRequests.setRoots,
    reconnected$: reconnectionsOf(prep.transport),
  };
}

/**
 * Connects to a server over `transport` and resolves once the client can send requests. With
 * `protocolVersion: 'auto'` (the default) it first asks the server with `server/discover` which
 * era it speaks (see `ClientOptions.protocolVersion`): a modern server is spoken to in the modern way
 * (no handshake; `era` is `modern`), a legacy one gets `initialize` (the connection is then
 * `operating`; `era` is `legacy`). Rejects with `UnsupportedProtocolVersionError` when the server
 * shares no revision with the client, `LegacyServerError` when a modern revision was pinned and
 * the server is legacy, and with the transport's or the server's error when the handshake fails;
 * the transport is closed then.
 * @example
 * const client = await connect(createStdioClientTransport({ command: 'node', args: ['server.js'] }),
 *   { name: 'demo-client', version: '1.0.0' });
 * client.callTool('add', { a: 1, b: 2 }).pipe(toolResult()).subscribe(console.log);
 */
export async function connect(transport: Transport, options: ClientOptions): Promise<McpClient> {
  const info: { name: string; version: string; title?: string } = { name: options.name, version: options.version };
  if (options.title !== undefined) info.title = options.title;
  const log = childLogger(options.logger, { component: 'client', client: options.name });
  const check =
    options.jsonSchemaValidator === undefined && options.logger === undefined
      ? defaultSchemaCheck()
      : createSchemaCheck(options.jsonSchemaValidator, log);
  const serverRequests = serverRequestHandlers(options, check, log);
  const prep: Preparation = {
    transport,
    options,
    info,
    log,
    check,
    serverRequests,
    declared: withExtensions(
      mergeCapabilities(serverRequests.capabilities, options.capabilities ?? {}),
      options.partialResults ? { ...options.extensions, [PARTIAL_RESULTS_EXTENSION]: {} } : options.extensions,
    ),
    revisions: options.supportedRevisions ?? SUPPORTED_REVISIONS,
    ready: {},
  };
  // A pinned handshake revision needs no probe: no promise to wait for either.
  let decision = pinnedHandshake(options.protocolVersion);
  if (decision === undefined) {
    try {
      decision = await decideEra(prep);
    } catch (error) {
      transport.close(`connect failed: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
  }
  const client = decision.era === 'legacy' ? await handshake(prep, decision.offer) : modern(prep, decision);
  prep.ready.client = client;
  if (options.keepalive) client.keepAlive(options.keepalive);
  return client;
}
