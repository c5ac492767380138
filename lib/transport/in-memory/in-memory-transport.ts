import type { Logger } from 'pino';
import type { Observable } from '../../rx/rxjs';
import type { JsonRpcMessage } from '../../jsonrpc/message';
import { CloseSignal } from '../framing/close-signal';
import { createFrameInbox } from '../framing/frame-inbox';
import type { FrameInbox } from '../framing/frame-inbox';
import type { InboundFrame, Transport, TransportClose } from '../transport';
import { childLogger } from '../../base/logger';
import type { LoggerOption } from '../../base/logger';

/**
 * What every in-memory pair has sent and not yet delivered, in the order it was sent: a frame and
 * the inbox it goes to, or a close (a function, with no frame). One queue for the whole process:
 * a message sent while another is delivered (a proxy passing a request on, a server answering)
 * goes out in the same microtask, after the one being delivered, rather than in a microtask of its
 * own; and a close scheduled after a send is delivered after it.
 */
const pending: Array<FrameInbox<InboundFrame> | (() => void) | InboundFrame | undefined> = [];
let flushScheduled = false;
/**
 * `queueMicrotask` as it was when this module loaded, to report a receiver's failure: a test's fake
 * timers, installed later, do not hold the report back.
 */
const schedule = queueMicrotask;
const settled = Promise.resolve();
/**
 * Runs `flushPending` in a microtask, through a settled promise rather than `queueMicrotask`: on
 * Node, `queueMicrotask` makes an `AsyncResource` and a bound function for every task, a
 * promise's reaction neither. Fake timers leave promises alone, so they never hold back delivery
 * (the queue is shared: one faked and never-run flush would stall every pair in the process).
 */
const scheduleFlush = (): void => void settled.then(flushPending);

function flushPending(): void {
  // Jobs enqueued while flushing are appended and run by this same loop.
  for (let i = 0; i < pending.length; i += 2) {
    const target = pending[i] as FrameInbox<InboundFrame> | (() => void);
    const frame = pending[i + 1] as InboundFrame;
    pending[i] = pending[i + 1] = undefined;
    try {
      if (typeof target === 'function') target();
      else target.push(frame);
    } catch (error) {
      // One receiver's failure is reported as an uncaught error, and the others still get theirs.
      schedule(() => {
        throw error;
      });
    }
  }
  pending.length = 0;
  flushScheduled = false;
}

function enqueue(target: FrameInbox<InboundFrame> | (() => void), frame: InboundFrame | undefined): void {
  pending.push(target, frame);
  if (!flushScheduled) {
    flushScheduled = true;
    scheduleFlush();
  }
}

/** Options for {@link createInMemoryPair}. */
export interface InMemoryPairOptions {
  /**
   * Deliver a structured clone of each message instead of the sent object (default `false`).
   * Slower; use it in tests to catch code that mutates a message after sending it or shares
   * objects between the two peers. Cloning happens in `send`, so later mutation is not seen, and a
   * message that cannot be cloned (it holds a function) makes `send` throw `DataCloneError`.
   */
  readonly clone?: boolean;
  /** Logs opened/closed at info and every message at trace; silent by default. */
  readonly logger?: LoggerOption;
}

/** What the two ends of a pair share. */
interface Pair {
  readonly clone: boolean;
  /** Set by the first `close()` on either end: sends on both become no-ops from then on. */
  closing: boolean;
}

/**
 * One end of an in-memory pair. A class, so that an idle pair holds two objects and their inboxes
 * rather than a closure per method and end.
 */
class InMemoryEnd implements Transport {
  private readonly inbox: FrameInbox<InboundFrame> = createFrameInbox<InboundFrame>();
  private readonly closedSignal = new CloseSignal<TransportClose>();
  /** Whether every message is logged (read once: this runs for every message). */
  private readonly trace: boolean;
  // Set right after construction (see `linked`): the two ends name each other.
  private peer!: InMemoryEnd;

  private constructor(
    private readonly pair: Pair,
    private readonly log: Logger,
  ) {
    this.trace = log.isLevelEnabled('trace');
  }

  // Read from the inbox and signal, which are their own Observables, rather than kept twice.
  get incoming$(): Observable<InboundFrame> {
    return this.inbox.values$;
  }

  get closed$(): Observable<TransportClose> {
    return this.closedSignal.closed$;
  }

  /** Two ends, each the other's peer. */
  static linked(pair: Pair, logA: Logger, logB: Logger): [InMemoryEnd, InMemoryEnd] {
    const a = new InMemoryEnd(pair, logA);
    const b = new InMemoryEnd(pair, logB);
    a.peer = b;
    b.peer = a;
    return [a, b];
  }

  send(message: JsonRpcMessage | readonly JsonRpcMessage[]): void {
    if (this.pair.closing) {
      this.log.debug('send after close ignored');
      return;
    }
    if (this.trace) this.log.trace({ message }, 'message out');
    enqueue(this.peer.inbox, this.pair.clone ? structuredClone(message) : message);
  }

  close(reason?: string): void {
    if (this.pair.closing) return;
    this.pair.closing = true;
    enqueue(() => {
      this.finish({ reason: reason ?? 'closed locally' });
      this.peer.finish({ reason: 'peer closed' });
    }, undefined);
  }

  private finish(close: TransportClose): void {
    this.inbox.complete();
    this.closedSignal.emit(close);
    this.log.info({ reason: close.reason }, 'transport closed');
  }
}

/**
 * Creates two transports linked to each other in memory: what `a` sends, `b` receives, and the
 * other way round. For tests, and for running a client and a server in one process.
 *
 * - Delivery keeps order and is asynchronous: a send never calls the receiver on the sender's
 *   stack. Messages sent in the same turn are delivered together from one microtask.
 * - The receiver gets the very object that was sent (no JSON round trip), or a structured clone
 *   with `clone: true`. A batch array arrives as one frame, an array.
 * - Frames sent before the receiver subscribes to `incoming$` are held for its first subscriber.
 * - `close()` on either side closes both: sends on either side become no-ops at once, messages
 *   already sent are still delivered, then each `incoming$` completes and each `closed$` emits
 *   (`'closed locally'` or the given reason on the closing side, `'peer closed'` on the other).
 *   Neither side ever reports an error: nothing here can fail.
 *
 * @example
 * const [clientTransport, serverTransport] = createInMemoryPair();
 */
export function createInMemoryPair(options: InMemoryPairOptions = {}): [Transport, Transport] {
  const pair: Pair = { clone: options.clone ?? false, closing: false };
  const log = childLogger(options.logger, { component: 'transport', transport: 'in-memory' });
  const ends = InMemoryEnd.linked(pair, childLogger(log, { side: 'a' }), childLogger(log, { side: 'b' }));
  log.info('in-memory pair opened');
  return ends;
}
