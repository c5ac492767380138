/**
 * A transport-level bridge: every frame that arrives on one transport is sent on the other, both
 * ways (requests, notifications, responses, batches, and the server's requests to the client), so
 * the two peers talk as if connected directly. `rxmcp connect` bridges a stdio server transport (the
 * local client) to a Streamable HTTP client transport (the remote server).
 */
import { firstValueFrom, map } from '../rx/rxjs';
import type { Subscription } from '../rx/rxjs';
import { JsonRpcError } from '../jsonrpc/errors';
import { errorResponse } from '../jsonrpc/message';
import type { JsonRpcMessage, RequestId } from '../jsonrpc/message';
import { MalformedFrame } from '../transport/transport';
import type { Transport, TransportClose } from '../transport/transport';

/** Which side of a bridge closed first, and why. */
export interface BridgeEnd {
  readonly side: 'client' | 'server';
  readonly close: TransportClose;
}

/** A running bridge. */
export interface Bridge {
  /** Resolves when either transport closes; the other is closed then too. */
  readonly ended: Promise<BridgeEnd>;
  /** Closes both transports. */
  close(reason?: string): void;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * Bridges `client` (the transport the client's messages arrive on, a server transport) and `server`
 * (the transport to the server, a client transport). Hot: it subscribes at once.
 *
 * - A frame from the client that is not JSON is answered there with a -32700 parse error, as the
 *   server would have answered it; nothing is sent on.
 * - While an `initialize` awaits its answer, the client's later frames wait for it too: over
 *   Streamable HTTP the session id and the revision come with that answer, and a request sent
 *   without them would be refused. The revision the server answers with is told to the server
 *   transport (`setProtocolVersion`), which sends it as `MCP-Protocol-Version` from then on.
 * - When either transport closes, the other is closed with the same reason. When the client closes
 *   (its stdin ended) while requests it sent await their answers, the server transport is given up
 *   to `drainMs` to answer them first: a server that fails meanwhile (unreachable, refusing) ends
 *   the bridge on its side, with its error, rather than the failure going unseen.
 */
export function bridge(client: Transport, server: Transport, drainMs = DRAIN_MS): Bridge {
  const initializing = new Set<RequestId>();
  /** Requests sent to the server that await their answers. */
  const pending = new Set<RequestId>();
  let drained: (() => void) | undefined;
  /** Client frames held while an initialize awaits its answer. */
  const held: unknown[] = [];
  const toServer = (frame: unknown) => {
    if (initializing.size > 0) {
      held.push(frame);
      return;
    }
    for (const message of Array.isArray(frame) ? (frame as unknown[]) : [frame]) {
      if (!isObject(message) || typeof message.method !== 'string' || message.id === undefined) continue;
      pending.add(message.id as RequestId);
      if (message.method === 'initialize') initializing.add(message.id as RequestId);
    }
    server.send(frame as JsonRpcMessage | JsonRpcMessage[]);
  };
  const subscriptions: Subscription[] = [
    client.incoming$.subscribe((frame) => {
      if (frame instanceof MalformedFrame)
        client.send(errorResponse(null, JsonRpcError.parseError(frame.reason).toJSON()));
      else toServer(frame);
    }),
    server.incoming$.subscribe((frame) => {
      if (frame instanceof MalformedFrame) return; // the server transport has logged it; the client has nothing to answer
      const answered = initializing.size > 0 && noteRevision(frame, initializing, server);
      if (pending.size > 0) settle(frame, pending, drained);
      client.send(frame as JsonRpcMessage | JsonRpcMessage[]);
      if (answered) for (const next of held.splice(0)) toServer(next);
    }),
  ];
  const serverEnd = firstValueFrom(server.closed$.pipe(map((close): BridgeEnd => ({ side: 'server', close }))));
  const clientEnd = firstValueFrom(client.closed$.pipe(map((close): BridgeEnd => ({ side: 'client', close })))).then(
    async (end) => {
      if (pending.size === 0 || drainMs <= 0) return end;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settled = new Promise<BridgeEnd>((resolve) => {
        drained = () => resolve(end);
        timer = setTimeout(() => resolve(end), drainMs);
      });
      const first = await Promise.race([settled, serverEnd]);
      clearTimeout(timer);
      return first;
    },
  );
  const ended = Promise.race([clientEnd, serverEnd]).then((end) => {
    const other = end.side === 'client' ? server : client;
    other.close(end.side === 'client' ? `client closed: ${end.close.reason}` : `server closed: ${end.close.reason}`);
    for (const subscription of subscriptions) subscription.unsubscribe();
    return end;
  });
  return {
    ended,
    close(reason = 'bridge closed') {
      client.close(reason);
      server.close(reason);
    },
  };
}

/** How long a bridge whose client closed waits for the answers to its requests in flight. */
const DRAIN_MS = 10_000;

/** Forgets the requests `frame` answers; calls `drained` once none is left. */
function settle(frame: unknown, pending: Set<RequestId>, drained: (() => void) | undefined): void {
  for (const message of Array.isArray(frame) ? (frame as unknown[]) : [frame]) {
    if (isObject(message) && !('method' in message)) pending.delete(message.id as RequestId);
  }
  if (pending.size === 0) drained?.();
}

/**
 * Tells `server` the revision of an `initialize` answer among `frame`'s messages; true when the
 * last initialize awaited was answered (with a result or an error).
 */
function noteRevision(frame: unknown, initializing: Set<RequestId>, server: Transport): boolean {
  let answered = false;
  for (const message of Array.isArray(frame) ? (frame as unknown[]) : [frame]) {
    if (!isObject(message) || 'method' in message || !initializing.delete(message.id as RequestId)) continue;
    answered = initializing.size === 0;
    const revision = isObject(message.result) ? message.result.protocolVersion : undefined;
    if (typeof revision === 'string') server.setProtocolVersion?.(revision);
  }
  return answered;
}
