import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import type { InMemoryPairOptions } from '../../lib/transport/in-memory/in-memory-transport';
import type { Transport } from '../../lib/transport/transport';

/** A client transport and a server transport linked in memory. */
export interface LinkedPair {
  readonly client: Transport;
  readonly server: Transport;
}

/**
 * Two in-memory transports linked to each other, named for the side that uses each. Messages are
 * structured-cloned by default so a test fails when code shares or mutates a sent message; pass
 * `{ clone: false }` to get the very objects that were sent.
 *
 * @example
 * const { client, server } = linkedPair();
 */
export function linkedPair(options: InMemoryPairOptions = {}): LinkedPair {
  const [client, server] = createInMemoryPair({ clone: true, ...options });
  return { client, server };
}
