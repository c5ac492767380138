import { firstValueFrom } from 'rxjs';
import { createConnection } from '../../lib/connection/create-connection';
import type { Connection } from '../../lib/connection/connection';
import type { RequestHandler } from '../../lib/connection/dispatcher';
import type { JsonRpcNotification } from '../../lib/jsonrpc/message';
import type { McpServer } from '../../lib/server/server';
import type { ServerSession } from '../../lib/server/server-context';
import type { Revision } from '../../lib/schema/revisions';
import { linkedPair } from '../support/linked-pair';

/** A client connection to a server session over an in-memory pair, initialized. */
export interface Served {
  readonly client: Connection;
  readonly session: ServerSession;
  /** Every notification the client received, in order. */
  readonly notifications: JsonRpcNotification[];
  /** Sends a request and resolves with its result (rejects with the JsonRpcError). */
  call(
    method: string,
    params?: Record<string, unknown>,
    options?: Parameters<Connection['request']>[2],
  ): Promise<Record<string, unknown>>;
  /** Notifications of one method received so far. */
  received(method: string): JsonRpcNotification[];
}

export interface ServeOptions {
  readonly protocolVersion?: Revision;
  readonly capabilities?: Record<string, unknown>;
  readonly handlers?: Record<string, RequestHandler>;
}

/** Lets queued microtasks and immediates run (in-memory delivery is asynchronous). */
export const flush = () => new Promise((resolve) => setImmediate(resolve));

/** Connects a client to `server` and completes the handshake. */
export async function serve(server: McpServer, options: ServeOptions = {}): Promise<Served> {
  const { client: clientSide, server: serverSide } = linkedPair();
  const session = server.connect(serverSide);
  const client = createConnection({
    transport: clientSide,
    role: 'client',
    info: { name: 'spec-client', version: '1.0.0' },
    capabilities: () => options.capabilities ?? {},
    protocolVersion: options.protocolVersion,
    handlers: options.handlers,
  });
  const notifications: JsonRpcNotification[] = [];
  client.notifications$.subscribe((n) => notifications.push(n));
  await firstValueFrom(client.initialize());
  await flush();
  return {
    client,
    session,
    notifications,
    call: (method, params, requestOptions) => firstValueFrom(client.request(method, params, requestOptions)),
    received: (method) => notifications.filter((n) => n.method === method),
  };
}
