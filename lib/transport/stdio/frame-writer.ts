/**
 * The stream a {@link FrameWriter} writes to: what both stdio transports need of a writable
 * stream (`process.stdout`, a child's stdin, a socket, a test double).
 */
export interface FrameSink {
  write(text: string): boolean;
  on(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
}

/**
 * Writes encoded frames to a stream in order, with as few `write` calls as it can.
 *
 * Each `write` on a pipe is a system call that wakes the peer, and costs about as much as the
 * peer's own work on a small message, so frames sent close together go out together:
 * - The first frame sent in a turn of the event loop is written at once: a lone message (one
 *   sequential request, its response) waits for nothing.
 * - Frames sent after it before the turn ends (the requests that many resolved calls send next)
 *   are joined and written with one call from a `process.nextTick` queued by the first: after the
 *   callback that sent it, or once the microtask queue is empty when it was sent from a microtask.
 * - Between `hold()` and `release()` (a transport's handler for one chunk of input) frames are
 *   joined and written at `release()`: the answers to a chunk of many requests.
 * - A batch is written as soon as it holds {@link MAX_BATCH_FRAMES} frames or
 *   {@link MAX_BATCH_CHARS} characters, and the next one starts: the peer works on the first
 *   frames while the rest are made. (With 64 calls in flight over stdio, a batch kept to the end
 *   of the turn left each process waiting for the other: 0.6 of the floor's calls per second.)
 * - When the stream's `write` returns `false`, later frames wait here and go out together on
 *   `'drain'`, so a slow reader does not make the stream's buffer grow one frame at a time.
 * - A process that exits before the turn ends (`process.exit()` right after a send) still writes
 *   what it sent: held frames are handed to the stream on the process's `'exit'`.
 */
export interface FrameWriter {
  /** Writes one encoded frame, or holds it as described above. */
  write(text: string): void;
  /** Whether frames wait for the stream's `'drain'`: its reader is behind. */
  readonly backlogged: boolean;
  /** Holds frames until `release()`; calls nest. */
  hold(): void;
  /** Ends a `hold()`: writes what was held with one call, unless the stream asked to wait. */
  release(): void;
  /**
   * Hands every frame still held (batched or waiting for `'drain'`) to the stream, whose own
   * buffer keeps them from here on, and stops listening for `'drain'`. For a transport that closes.
   */
  end(): void;
  /** Drops every frame still held and stops listening for `'drain'`. For a stream that failed. */
  discard(): void;
}

/** A batch that reaches this many frames is written at once. */
export const MAX_BATCH_FRAMES = 16;
/** A batch that reaches this many characters is written at once. */
export const MAX_BATCH_CHARS = 64 * 1024;

// Writers that hold frames, by the function that hands their frames to the stream. A process that
// exits right after a send (`process.exit()` in the same turn) never reaches the end of the turn;
// on 'exit' these frames are handed over, and a pipe takes a small write at once, as it would have
// without batching. From then on, writes go straight to the stream (the 'exit' listeners that run
// after this one may still send).
const holdingWriters = new Set<() => void>();
let exitHookInstalled = false;
let exiting = false;

function onProcessExit(): void {
  exiting = true;
  for (const handOver of holdingWriters) handOver();
  holdingWriters.clear();
}

// Registers a writer that starts holding frames, so that they are handed over on 'exit'.
function trackHolding(handOver: () => void): void {
  holdingWriters.add(handOver);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', onProcessExit);
  }
}

/** Creates a {@link FrameWriter} for `sink`. It listens for `'drain'` until `end()` or `discard()`. */
export function createFrameWriter(sink: FrameSink): FrameWriter {
  return new BatchingFrameWriter(sink);
}

class BatchingFrameWriter implements FrameWriter {
  // Frames not yet handed to the stream, in order, and their length in characters.
  private held: string[] = [];
  private heldChars = 0;
  // Set while the stream's buffer is over its mark: everything waits for 'drain'.
  private waitingForDrain = false;
  // Set from a turn's first write until its nextTick: later writes of the turn are batched.
  private turnOpen = false;
  private holds = 0;
  private ended = false;

  constructor(private readonly sink: FrameSink) {
    sink.on('drain', this.onDrain);
  }

  get backlogged(): boolean {
    return this.waitingForDrain;
  }

  write(text: string): void {
    if (this.ended) return;
    if (exiting) {
      this.sink.write(text);
      return;
    }
    if (this.waitingForDrain || this.turnOpen || this.holds > 0) {
      this.holdFrame(text);
      return;
    }
    this.turnOpen = true;
    process.nextTick(this.endTurn);
    if (!this.sink.write(text)) this.waitingForDrain = true;
  }

  hold(): void {
    this.holds++;
  }

  release(): void {
    if (this.holds === 0) return;
    this.holds--;
    if (this.holds === 0 && !this.waitingForDrain) this.writeHeld();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.sink.off('drain', this.onDrain);
    // The stream's buffer takes them whatever its mark; a closing transport sends no more.
    this.handOver();
  }

  discard(): void {
    if (this.ended) return;
    this.ended = true;
    this.sink.off('drain', this.onDrain);
    holdingWriters.delete(this.handOver);
    this.held = [];
    this.heldChars = 0;
  }

  // Hands every held frame to the stream, whatever its mark.
  private readonly handOver = (): void => {
    holdingWriters.delete(this.handOver);
    const text = this.held.join('');
    this.held = [];
    this.heldChars = 0;
    if (text !== '') this.sink.write(text);
  };

  private readonly endTurn = (): void => {
    this.turnOpen = false;
    if (!this.waitingForDrain && this.holds === 0) this.writeHeld();
  };

  private readonly onDrain = (): void => {
    this.waitingForDrain = false;
    if (this.holds === 0) this.writeHeld();
  };

  private holdFrame(text: string): void {
    if (this.held.length === 0) trackHolding(this.handOver);
    this.held.push(text);
    this.heldChars += text.length;
    // A full batch goes now, in a hold or a turn alike; frames waiting for 'drain' keep waiting.
    if (!this.waitingForDrain && (this.held.length >= MAX_BATCH_FRAMES || this.heldChars >= MAX_BATCH_CHARS))
      this.writeHeld();
  }

  private writeHeld(): void {
    if (this.held.length === 0) return;
    holdingWriters.delete(this.handOver);
    const text = this.held.length === 1 ? (this.held[0] as string) : this.held.join('');
    this.held = [];
    this.heldChars = 0;
    if (!this.sink.write(text)) this.waitingForDrain = true;
  }
}
