import type { AuthInfo, Transport } from '../../lib/transport/transport';

/** The same transport as a protected endpoint would present it: with its verified caller as `auth`. */
export function authenticated(transport: Transport, auth: AuthInfo): Transport {
  return {
    incoming$: transport.incoming$,
    closed$: transport.closed$,
    send: (message, options) => transport.send(message, options),
    close: (reason) => transport.close(reason),
    auth,
  };
}
