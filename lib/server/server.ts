import pino from 'pino';
import type { Logger } from 'pino';
import type { Observable } from 'rxjs';
import { createConnection } from '../connection/connection';
import type { Connection } from '../connection/connection';
import type { Revision } from '../schema/revisions';
import type { Transport, TransportClose } from '../transport/transport';
import { createToolRegistry } from './tool-registry';
import type { ToolDefinition } from './tool-registry';

/** Options of `createServer`. */
export interface ServerOptions {
  /** The server's name, sent as `serverInfo.name`. */
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  /** Instructions for the client's model, sent in the initialize result. */
  readonly instructions?: string;
  /** Revisions the server accepts, oldest first. Default: all that rxmcp supports. */
  readonly supportedRevisions?: readonly Revision[];
  /** Default timeout of requests the server sends to clients (sampling, elicitation, roots). */
  readonly requestTimeoutMs?: number;
  /** Server-side logs (not the MCP log messages sent to clients). Silent by default. */
  readonly logger?: Logger;
}

/** One client's connection to a server. */
export interface ServerSession {
  readonly connection: Connection;
  /** Emits once when the session ends. */
  readonly closed$: Observable<TransportClose>;
  close(reason?: string): void;
}

/**
 * An MCP server definition: registries shared by any number of sessions. Each `connect` starts a
 * session with its own lifecycle actor.
 */
export interface McpServer {
  /** Registers a tool. Throws if the name is taken. */
  tool<Args>(definition: ToolDefinition<Args>): void;
  /** Removes a tool; true if it existed. */
  removeTool(name: string): boolean;
  /** Serves one client over `transport`. */
  connect(transport: Transport): ServerSession;
  /** The sessions currently open. */
  readonly sessions: ReadonlySet<ServerSession>;
  /** Closes every session. */
  close(): void;
}

const silentLogger = pino({ level: 'silent' });

/**
 * Creates a server.
 * @example
 * const server = createServer({ name: 'demo', version: '1.0.0' });
 * server.tool({ name: 'echo', inputSchema: z.object({ text: z.string() }),
 *   handler: ({ text }) => ({ content: [{ type: 'text', text }] }) });
 * server.connect(createStdioServerTransport());
 */
export function createServer(options: ServerOptions): McpServer {
  const logger = (options.logger ?? silentLogger).child({ component: 'server', server: options.name });
  const tools = createToolRegistry();
  const sessions = new Set<ServerSession>();
  const info: { name: string; version: string; title?: string } = { name: options.name, version: options.version };
  if (options.title !== undefined) info.title = options.title;

  const capabilities = () => {
    const declared: Record<string, unknown> = {};
    if (tools.size > 0) declared.tools = { listChanged: true };
    return declared;
  };

  return {
    tool: (definition) => tools.add(definition),
    removeTool: (name) => tools.remove(name),
    sessions,
    connect(transport) {
      const connection = createConnection({
        transport,
        role: 'server',
        info,
        instructions: options.instructions,
        capabilities,
        supportedRevisions: options.supportedRevisions,
        requestTimeoutMs: options.requestTimeoutMs,
        logger,
        handlers: {
          'tools/list': () => ({ tools: tools.list() }),
          'tools/call': (params, context) => tools.call(params, context),
        },
      });
      const session: ServerSession = {
        connection,
        closed$: connection.closed$,
        close: (reason) => connection.close(reason),
      };
      sessions.add(session);
      connection.closed$.subscribe(() => sessions.delete(session));
      return session;
    },
    close() {
      for (const session of [...sessions]) session.close('server closed');
    },
  };
}
