/**
 * A bench target from a transport factory, for users of `rxmcp/bench`: each repetition connects a
 * fresh client over a fresh transport (for a stdio transport, a fresh server process, whose PID
 * the engine reads CPU time and memory from).
 */
import { firstValueFrom } from '../rx/rxjs';
import { connect } from '../client/client';
import type { ClientOptions } from '../client/client-api';
import type { Transport } from '../transport/transport';
import type { BenchConnection, BenchTarget } from './engine';

/** Options of {@link transportTarget}. */
export interface TransportTargetOptions {
  readonly name: string;
  /** How the target is reached, for the report. Default: the name. */
  readonly how?: string;
  /** A new transport for each connection: `() => createStdioClientTransport({ command, args })`. */
  readonly transport: () => Transport;
  /** The client's options (name, version, protocolVersion...). Default: `rxmcp bench` 1.0.0. */
  readonly client?: ClientOptions;
}

/**
 * A target that connects a client over `transport()` for each connection, and closes it by closing
 * the client and waiting for the transport to close (a spawned server to exit).
 * @example
 * const target = transportTarget({ name: 'mine', transport: () => createStdioClientTransport({ command: 'node', args: ['server.js'] }) });
 */
export function transportTarget(options: TransportTargetOptions): BenchTarget {
  return {
    name: options.name,
    how: options.how ?? options.name,
    async open(): Promise<BenchConnection> {
      const transport = options.transport();
      const closed = firstValueFrom(transport.closed$, { defaultValue: undefined });
      const client = await connect(transport, options.client ?? { name: 'rxmcp bench', version: '1.0.0' });
      const pid = (transport as { pid?: unknown }).pid;
      return {
        client,
        ...(typeof pid === 'number' ? { pid } : {}),
        close: async () => {
          client.close('benchmark done');
          await closed;
        },
      };
    },
  };
}
