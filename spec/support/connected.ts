import { connect } from '../../lib/client/client';
import type { ClientOptions, McpClient } from '../../lib/client/client';
import type { McpServer } from '../../lib/server/server';
import { linkedPair } from './linked-pair';

/**
 * A client connected to `server` over an in-memory pair, in the era the options pick: the default
 * (`auto`) speaks the modern revision, `protocolVersion: '2025-11-25'` the handshake.
 */
export async function connected(server: McpServer, options: Partial<ClientOptions> = {}): Promise<McpClient> {
  const { client, server: serverSide } = linkedPair();
  server.connect(serverSide);
  return connect(client, { name: 'spec-client', version: '1.0.0', ...options });
}
