import type { Unsubscribable } from '../rx/rxjs';
import { isDirectlyReadable, readDirectly } from '../transport/framing/direct-reading';
import type { DirectCloseReader, DirectlyReadable, DirectValueReader } from '../transport/framing/direct-reading';
import type { InboundFrame, Transport, TransportClose } from '../transport/transport';
import type { ConnectionCore } from './connection-core';
import { onFrame } from './inbound';

/** How a connection stops reading one of its transport's streams: a subscription, or a source it reads directly. */
export type Reading = Unsubscribable | DirectlyReadable<never>;

/**
 * Reads a transport into its connection: its frames, its end and its close. One object per
 * connection, which the transport's inbox and close signal call directly where they can (see
 * `direct-reading.ts`): an idle connection then holds no subscription to its transport.
 */
export class TransportReader implements DirectValueReader<InboundFrame>, DirectCloseReader<TransportClose> {
  constructor(private readonly connection: ConnectionCore) {}

  next(frame: InboundFrame): void {
    try {
      onFrame(this.connection, frame);
    } catch (error) {
      // As a subscriber's failure is: reported as uncaught, not thrown into the transport's I/O.
      queueMicrotask(() => {
        throw error;
      });
    }
  }

  complete(): void {
    // closed$ carries the reason and any error; some transports complete incoming$ just before it,
    // so wait a microtask before falling back to a generic reason.
    queueMicrotask(() => this.connection.shutdown('transport ended'));
  }

  closedWith(close: TransportClose): void {
    this.connection.shutdown(close.reason, close.error);
  }
}

/** Subscribes a reader to a `closed$` it cannot read directly. */
class CloseObserver {
  constructor(private readonly reader: TransportReader) {}

  next(close: TransportClose): void {
    this.reader.closedWith(close);
  }
}

/** Starts reading the transport's close: directly where its `closed$` allows it, or by subscribing. */
export function readClose(transport: Transport, reader: TransportReader): Reading {
  const source = transport.closed$;
  if (!isDirectlyReadable<DirectCloseReader<TransportClose>>(source))
    return source.subscribe(new CloseObserver(reader));
  source[readDirectly](reader);
  return source;
}

/** Starts reading the transport's frames: directly where its `incoming$` allows it, or by subscribing. */
export function readFrames(transport: Transport, reader: TransportReader): Reading {
  const source = transport.incoming$;
  if (!isDirectlyReadable<DirectValueReader<InboundFrame>>(source)) return source.subscribe(reader);
  source[readDirectly](reader);
  return source;
}

/** Stops a reading that `readClose` or `readFrames` started. */
export function stopReading(reading: Reading | undefined): void {
  if (reading === undefined) return;
  if (isDirectlyReadable<never>(reading)) reading[readDirectly](undefined);
  else reading.unsubscribe();
}
