import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type pino from 'pino';
import { ReplaySubject } from '../../../rx/rxjs';
import type { JsonRpcMessage } from '../../../jsonrpc/message';
import { createFrameInbox } from '../../framing/frame-inbox';
import { encodeMessage } from '../../framing/encode';
import { encodeSseEvent } from '../../framing/sse';
import { principalOf } from '../../transport';
import type { AuthInfo, InboundFrame, Transport, TransportClose } from '../../transport';
import { childLogger } from '../../../base/logger';

/** The server side of one 2024-11-05 HTTP+SSE session. */
export interface HttpSseServerTransport extends Transport {
  /** The id carried by the `sessionId` query parameter of the POST endpoint. */
  readonly sessionId: string;
}

/** What every session of one HTTP+SSE handler shares. */
export interface HttpSseSessionSettings {
  /** The POST endpoint announced in the `endpoint` event. */
  readonly messagesPath: string;
  readonly maxBufferedBytes: number;
  readonly keepAliveMs: number;
  /** The handler's logger; the session logs with its id. */
  readonly log: pino.Logger;
  /** Called once, when the session closes. */
  readonly forget: (sessionId: string) => void;
}

/**
 * One session of the HTTP+SSE handler: its SSE stream, its transport, and the keep-alive comments
 * written while the stream is idle. See `createHttpSseHandler` for the behaviour.
 */
export class HttpSseSession {
  readonly sessionId = randomUUID();
  readonly transport: HttpSseServerTransport;
  readonly log: pino.Logger;
  /** The principal of the caller who opened the session (undefined on an open endpoint): it alone may POST to it. */
  readonly owner: string | undefined;
  /** The verified caller of the latest request of this session: the GET that opened it, then each POST. */
  private readonly latest: { caller: AuthInfo | undefined };
  private readonly inbox = createFrameInbox<InboundFrame>();
  private readonly closed$ = new ReplaySubject<TransportClose>(1);
  private closed = false;
  // Set by each write; the keep-alive timer writes a comment only after a quiet interval.
  private wrote = true;
  private keepAlive: NodeJS.Timeout | undefined;

  /** @param caller Who opened the session, as the handler's `auth` verified the GET. */
  constructor(
    private readonly res: ServerResponse,
    private readonly settings: HttpSseSessionSettings,
    caller: AuthInfo | undefined,
  ) {
    const { sessionId } = this;
    this.log = childLogger(settings.log, { sessionId });
    const latest = (this.latest = { caller });
    this.owner = principalOf(caller);
    this.transport = {
      sessionId,
      incoming$: this.inbox.values$,
      closed$: this.closed$.asObservable(),
      send: (message) => this.send(message),
      close: (reason = 'closed locally') => this.finish(reason),
      get auth() {
        return latest.caller;
      },
    };
  }

  /** Starts the SSE stream: the headers, the `endpoint` event, then keep-alive comments. */
  open(): void {
    const { res, settings } = this;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
    });
    const separator = settings.messagesPath.includes('?') ? '&' : '?';
    res.write(
      encodeSseEvent({
        event: 'endpoint',
        data: `${settings.messagesPath}${separator}sessionId=${encodeURIComponent(this.sessionId)}`,
      }),
    );
    res.on('close', () => this.finish('client disconnected'));
    if (settings.keepAliveMs > 0) {
      this.keepAlive = setInterval(() => {
        if (!this.wrote) res.write(': keep-alive\n\n');
        this.wrote = false;
      }, settings.keepAliveMs);
      this.keepAlive.unref();
    }
  }

  /**
   * Delivers one message POSTed to this session by `caller` (the owner's principal, perhaps with a
   * newer token), who becomes the transport's `auth`.
   */
  push(frame: InboundFrame, caller: AuthInfo | undefined): void {
    if (this.log.isLevelEnabled('trace')) this.log.trace({ message: frame }, 'message in');
    if (caller !== undefined) this.latest.caller = caller;
    this.inbox.push(frame);
  }

  private send(message: JsonRpcMessage | readonly JsonRpcMessage[]): void {
    if (this.closed) return;
    const { res, log } = this;
    if (log.isLevelEnabled('trace')) log.trace({ message }, 'message out');
    // A message JSON cannot write throws here, with nothing written (see `encodeMessage`).
    res.write(encodeSseEvent({ event: 'message', data: encodeMessage(message) }));
    this.wrote = true;
    if (res.writableLength > this.settings.maxBufferedBytes) {
      log.warn({ buffered: res.writableLength }, 'slow reader: closing the session');
      this.finish('slow reader');
      // What waits unsent would never be read: drop it with the connection.
      res.destroy();
    }
  }

  private finish(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.settings.forget(this.sessionId);
    if (!this.res.writableEnded) this.res.end();
    this.log.info({ reason }, 'session closed');
    this.closed$.next({ reason });
    this.closed$.complete();
    this.inbox.complete();
  }
}
