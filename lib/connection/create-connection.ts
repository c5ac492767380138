import type * as ClientHandshake from './client-handshake';
import type * as ClientMachine from './client-lifecycle.machine';
import { useClientPart } from './client-part';
import type { ClientPart } from './client-part';
import { openConnection } from './connection';
import type { Connection, ConnectionOptions } from './connection-api';

/** The client's part of a connection, loaded with the first client connection (its machine is built then). */
function loadClientPart(): ClientPart {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const handshake = require('./client-handshake') as typeof ClientHandshake;
  const { clientLifecycle } = require('./client-lifecycle.machine') as typeof ClientMachine;
  /* eslint-enable @typescript-eslint/no-require-imports */
  return {
    machine: clientLifecycle,
    handshake: handshake.runClientHandshake,
    enterModern: handshake.enterModern,
    requestMeta: handshake.modernRequestMeta,
  };
}

/**
 * Creates the connection actor for a transport. It starts reading the transport at once; a server
 * connection then waits for initialize, a client connection for `initialize()`.
 */
export function createConnection(options: ConnectionOptions): Connection {
  if (options.role === 'client') useClientPart(loadClientPart);
  return openConnection(options);
}
