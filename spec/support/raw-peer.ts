import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import type { Transport } from '../../lib/transport/transport';

/**
 * Drives one end of a transport by hand: send raw frames, await what the other side answers.
 * For tests that assert wire messages.
 */
export interface RawPeer {
  send(frame: unknown): void;
  /** Resolves with the next frame received (waits if none is queued). */
  next(): Promise<unknown>;
  /** Resolves with the next frame that matches, dropping the others. */
  nextMatching(predicate: (frame: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Every frame received so far, in order. */
  readonly received: unknown[];
  /** Completes the handshake as a client; resolves with the initialize result. */
  initialize(protocolVersion?: string, capabilities?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export function rawPeer(transport: Transport): RawPeer {
  const received: unknown[] = [];
  let cursor = 0;
  const waiters: Array<() => void> = [];
  transport.incoming$.subscribe((frame) => {
    received.push(frame);
    waiters.splice(0).forEach((wake) => wake());
  });
  const next = async (): Promise<unknown> => {
    while (cursor >= received.length) await new Promise<void>((resolve) => waiters.push(resolve));
    return received[cursor++];
  };
  const nextMatching = async (predicate: (frame: Record<string, unknown>) => boolean) => {
    for (;;) {
      const frame = (await next()) as Record<string, unknown>;
      if (predicate(frame)) return frame;
    }
  };
  return {
    send: (frame) => transport.send(frame as never),
    next,
    nextMatching,
    received,
    async initialize(protocolVersion = '2025-11-25', capabilities = {}) {
      transport.send({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion, capabilities, clientInfo: { name: 'raw-peer', version: '1.0.0' } },
      });
      const answer = await nextMatching((f) => f.id === 'init');
      transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return answer.result as Record<string, unknown>;
    },
  };
}

/** A raw peer in a session with `server` over an in-memory pair, its handshake done (2025-11-25 by default). */
export async function rawSession(
  server: { connect(transport: Transport): unknown },
  capabilities: Record<string, unknown> = {},
  protocolVersion = '2025-11-25',
): Promise<RawPeer> {
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(serverSide);
  const peer = rawPeer(clientSide);
  await peer.initialize(protocolVersion, capabilities);
  return peer;
}
