import { createConnection } from '../../lib/connection/create-connection';
import type { Connection } from '../../lib/connection/connection';
import type { RequestHandler } from '../../lib/connection/dispatcher';
import type { Transport } from '../../lib/transport/transport';
import { linkedPair } from '../support/linked-pair';

/** A server-role connection with hand-written handlers, linked in memory to a client transport. */
export interface FakeServer {
  readonly connection: Connection;
  /** The transport to give `connect`. */
  readonly clientTransport: Transport;
  /** Methods of the requests the server received, in order. */
  readonly received: string[];
}

export interface FakeServerOptions {
  readonly capabilities?: Record<string, unknown>;
  readonly handlers?: Record<string, RequestHandler>;
  readonly instructions?: string;
  /** Validate the client's answers against the revision's result schemas. Default true. */
  readonly validateResults?: boolean;
  /** The revisions the server speaks. Default: every one, so it is a dual-era server. */
  readonly supportedRevisions?: readonly string[];
}

/** The handshake revisions: a server limited to them is a legacy server. */
export const LEGACY_ONLY: readonly string[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

export function fakeServer(options: FakeServerOptions = {}): FakeServer {
  const { client, server } = linkedPair();
  const received: string[] = [];
  const handlers: Record<string, RequestHandler> = {};
  for (const [method, handler] of Object.entries(options.handlers ?? {})) {
    handlers[method] = (params, context) => {
      received.push(method);
      return handler(params, context);
    };
  }
  const connection = createConnection({
    transport: server,
    role: 'server',
    info: { name: 'fake-server', version: '1.0.0' },
    capabilities: () => options.capabilities ?? {},
    instructions: options.instructions,
    validateResults: options.validateResults,
    supportedRevisions: options.supportedRevisions,
    handlers,
  });
  return { connection, clientTransport: client, received };
}

/** Lets queued microtasks (in-memory delivery) run. */
export async function flush(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
