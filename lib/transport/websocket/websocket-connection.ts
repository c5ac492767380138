import type pino from 'pino';
import { ReplaySubject } from '../../rx/rxjs';
import { WebSocket } from 'ws';
import type { RawData } from 'ws';
import { TransportError } from '../../jsonrpc/errors';
import type { JsonRpcMessage } from '../../jsonrpc/message';
import { createFrameInbox } from '../framing/frame-inbox';
import { isBacklogged, MalformedFrame } from '../transport';
import type { InboundFrame, TransportClose } from '../transport';
import { encodeMessage } from '../framing/encode';
import { TOKEN_EXPIRED_CLOSE_CODE } from './websocket-auth';
import type { ConnectionGuard } from './websocket-auth';

/** The longest delay `setTimeout` takes (about 24.8 days); a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

// The reason a socket closed by the peer gives, or one made from its close code.
function peerCloseReason(code: number, reason: Buffer): string {
  if (reason.length > 0) return reason.toString('utf8');
  return code === 1000 || code === 1005 ? 'peer closed' : `closed with code ${code}`;
}

/**
 * The state of one WebSocket transport: the messages waiting for the socket to open, the pings
 * that check the peer is there, and how the socket's events close it. See `wrapWebSocket` for the
 * behaviour.
 */
export class WebSocketConnection {
  readonly inbox = createFrameInbox<InboundFrame>();
  readonly closed$ = new ReplaySubject<TransportClose>(1);
  private waiting: string[] = [];
  private closing = false;
  private outcome: TransportClose | undefined;
  // Whether the peer answered the last ping (RFC 6455: every endpoint answers a ping with a pong).
  private heard = true;
  private pinger: NodeJS.Timeout | undefined;
  private expiry: NodeJS.Timeout | undefined;

  /** @param guard On the server side of a protected endpoint: what each inbound frame and the token's expiry are checked against. */
  constructor(
    private readonly socket: WebSocket,
    private readonly log: pino.Logger,
    private readonly maxBufferedBytes: number,
    private readonly pingIntervalMs: number,
    private readonly guard?: ConnectionGuard,
  ) {}

  /** Listens to the socket's events, and starts pinging (and the expiry timer) if it is open already. */
  attach(): void {
    const { socket } = this;
    socket.on('pong', () => (this.heard = true));
    socket.on('open', () => this.onOpen());
    socket.on('message', (data: RawData, isBinary: boolean) => this.onMessage(data, isBinary));
    socket.on('error', (error) => this.fail('error', error));
    socket.on('close', (code: number, reason: Buffer) => this.onClose(code, reason));
    if (socket.readyState === WebSocket.OPEN) this.startPinging();
    if (this.guard?.caller.expiresAt !== undefined) this.watchExpiry(this.guard.caller.expiresAt * 1000);
  }

  /** Sends one message or batch as a text frame, or queues it while the socket connects. */
  send(message: JsonRpcMessage | readonly JsonRpcMessage[], droppable = false): void {
    if (this.closing) {
      this.log.debug('send after close ignored');
      return;
    }
    // A message the peer may miss waits for no slow reader (see `SendOptions.droppable`).
    if (droppable && isBacklogged(this.socket.bufferedAmount, this.maxBufferedBytes)) return;
    if (this.log.isLevelEnabled('trace')) this.log.trace({ message }, 'message out');
    // A message JSON cannot write throws here, with nothing queued: the socket goes on.
    const text = encodeMessage(message);
    if (this.socket.readyState === WebSocket.CONNECTING) this.waiting.push(text);
    else if (this.socket.readyState === WebSocket.OPEN) this.write(text);
  }

  /** Closes the socket with `code` (default 1000) and `reason`, or drops it while it is still connecting. */
  close(reason: string, code = 1000): void {
    if (this.closing) return;
    this.closing = true;
    this.outcome = { reason };
    // A close reason is at most 123 bytes on the wire.
    const wire = Buffer.from(reason).subarray(0, 123).toString('utf8');
    if (this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate();
    else this.socket.close(code, wire);
  }

  /**
   * Closes the socket (1008) once the caller's token expires at `atMs`: nothing on a WebSocket
   * presents it again, so the connection lives no longer than it does.
   */
  private watchExpiry(atMs: number): void {
    const left = atMs - Date.now();
    if (left <= 0) {
      this.log.info('access token expired: closing the socket');
      this.close('the access token expired', TOKEN_EXPIRED_CLOSE_CODE);
      return;
    }
    this.expiry = setTimeout(() => this.watchExpiry(atMs), Math.min(left, MAX_TIMER_MS));
    this.expiry.unref();
  }

  private startPinging(): void {
    if (this.pingIntervalMs <= 0 || this.pinger) return;
    this.pinger = setInterval(() => this.ping(), this.pingIntervalMs);
    // The pings keep no process alive by themselves.
    this.pinger.unref();
  }

  private ping(): void {
    const { pingIntervalMs } = this;
    if (!this.heard) {
      this.log.warn({ pingIntervalMs }, 'peer did not answer ping: dropping the socket');
      this.fail('peer did not answer ping', new Error(`nothing heard for ${pingIntervalMs} ms after a ping`));
      return;
    }
    this.heard = false;
    this.socket.ping();
  }

  private write(text: string): void {
    const { socket, maxBufferedBytes } = this;
    socket.send(text, (error) => {
      if (error && !this.closing) this.fail('send failed', error);
    });
    if (socket.bufferedAmount > maxBufferedBytes) {
      this.log.warn({ buffered: socket.bufferedAmount }, 'slow reader: closing the socket');
      this.fail('peer does not read fast enough', new Error(`more than ${maxBufferedBytes} bytes wait unsent`));
    }
  }

  private fail(reason: string, error: Error): void {
    if (this.outcome) return;
    this.outcome = { reason, error: new TransportError(`WebSocket ${reason}: ${error.message}`, { cause: error }) };
    this.closing = true;
    this.socket.terminate();
  }

  private onOpen(): void {
    this.startPinging();
    const queued = this.waiting;
    this.waiting = [];
    for (const text of queued) this.write(text);
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.closing) return;
    if (isBinary) {
      this.log.warn('binary frame received');
      this.inbox.push(new MalformedFrame('(binary frame)', 'MCP over WebSocket uses text frames'));
      return;
    }
    const text = rawText(data);
    let frame: unknown;
    try {
      frame = JSON.parse(text) as unknown;
    } catch (error) {
      this.log.warn({ reason: (error as Error).message }, 'frame is not JSON');
      this.inbox.push(new MalformedFrame(text.slice(0, 1000), (error as Error).message));
      return;
    }
    if (this.log.isLevelEnabled('trace')) this.log.trace({ message: frame }, 'message in');
    if (this.guard) {
      frame = this.guard.admit(frame, (refusal) => this.send(refusal));
      if (frame === undefined) return;
    }
    this.inbox.push(frame);
  }

  private onClose(code: number, reason: Buffer): void {
    this.closing = true;
    if (this.pinger) clearInterval(this.pinger);
    if (this.expiry) clearTimeout(this.expiry);
    this.waiting = [];
    const close = this.outcome ?? { reason: peerCloseReason(code, reason) };
    this.log.info({ reason: close.reason, code }, 'transport closed');
    this.closed$.next(close);
    this.closed$.complete();
    this.inbox.complete();
  }
}
