import pino from 'pino';
import type { Logger } from 'pino';
import { firstValueFrom, map } from 'rxjs';
import type { Observable } from 'rxjs';
import { createConnection } from '../connection/connection';
import type { Connection, RequestOptions } from '../connection/connection';
import type { Revision } from '../schema/revisions';
import type { Transport } from '../transport/transport';

/** Options of `connect`. */
export interface ClientOptions {
  /** The client's name, sent as `clientInfo.name`. */
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  /** Capabilities to declare (sampling, elicitation, roots, ...). */
  readonly capabilities?: Record<string, unknown>;
  /** The revision to offer. Default: the latest rxmcp supports. */
  readonly protocolVersion?: Revision;
  /** Revisions accepted in the server's answer. Default: all that rxmcp supports. */
  readonly supportedRevisions?: readonly Revision[];
  /** Default timeout of requests. */
  readonly requestTimeoutMs?: number;
  readonly logger?: Logger;
}

/** A connected MCP client. It exists only once the handshake is done. */
export interface McpClient {
  readonly connection: Connection;
  /** The negotiated protocol revision. */
  readonly revision: Revision;
  readonly serverInfo: Record<string, unknown>;
  readonly serverCapabilities: Record<string, unknown>;
  readonly instructions: string | undefined;
  /** Sends any request. Cold; see `Connection.request`. */
  request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Observable<Record<string, unknown>>;
  /** Pings the server; resolves when it answers. */
  ping(options?: RequestOptions): Promise<void>;
  /** Lists the server's tools (one page). Cold. */
  listTools(options?: RequestOptions): Observable<Record<string, unknown>[]>;
  /** Calls a tool. Cold: emits the result; unsubscribing early cancels the call. */
  callTool(name: string, args?: Record<string, unknown>, options?: RequestOptions): Observable<Record<string, unknown>>;
  /** Closes the connection. */
  close(): void;
}

const silentLogger = pino({ level: 'silent' });

/**
 * Connects to a server over `transport` and resolves once the handshake is done. Rejects with
 * `UnsupportedProtocolVersionError` when the server answers a revision the client does not speak.
 * @example
 * const client = await connect(createStdioClientTransport({ command: 'node', args: ['server.js'] }),
 *   { name: 'demo-client', version: '1.0.0' });
 */
export async function connect(transport: Transport, options: ClientOptions): Promise<McpClient> {
  const info: { name: string; version: string; title?: string } = { name: options.name, version: options.version };
  if (options.title !== undefined) info.title = options.title;
  const connection = createConnection({
    transport,
    role: 'client',
    info,
    capabilities: () => options.capabilities ?? {},
    protocolVersion: options.protocolVersion,
    supportedRevisions: options.supportedRevisions,
    requestTimeoutMs: options.requestTimeoutMs,
    logger: (options.logger ?? silentLogger).child({ component: 'client', client: options.name }),
  });
  try {
    await firstValueFrom(connection.initialize());
  } catch (error) {
    connection.close('initialize failed');
    throw error;
  }
  const request = connection.request;
  return {
    connection,
    revision: connection.revision as Revision,
    serverInfo: connection.peerInfo ?? {},
    serverCapabilities: connection.peerCapabilities ?? {},
    instructions: connection.instructions,
    request,
    ping: async (requestOptions) => {
      await firstValueFrom(request('ping', undefined, requestOptions));
    },
    listTools: (requestOptions) =>
      request('tools/list', {}, requestOptions).pipe(map((result) => result.tools as Record<string, unknown>[])),
    callTool: (name, args, requestOptions) => request('tools/call', { name, arguments: args ?? {} }, requestOptions),
    close: () => connection.close(),
  };
}
