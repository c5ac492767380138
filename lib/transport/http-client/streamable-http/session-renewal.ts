/**
 * A new session after the server forgot ours (spec: Transports → Streamable HTTP → Session
 * Management: on 404 to a request that carried `Mcp-Session-Id`, the client MUST start a new
 * session with a new `InitializeRequest` without a session id). Client side, handshake revisions
 * only: a modern request (2026-07-28 on) carries no session id, so a 404 to it is no session
 * matter.
 */
import type pino from 'pino';
import { Subject } from '../../../rx/rxjs';
import type { Observable } from '../../../rx/rxjs';
import { TransportError } from '../../../jsonrpc/errors';
import type { JsonRpcErrorResponse, JsonRpcMessage, RequestId } from '../../../jsonrpc/message';
import { createSseParser } from '../../framing/sse';
import type { HttpAnswer, HttpCall, HttpRequestSpec } from '../http-requester';
import { SessionNotFoundError } from '../http-errors';
import { idOfKey, keyOf } from '../../http/request-keys';

/** What a client transport reports when it started a new session in place of one the server forgot. */
export interface Reconnection {
  /** The session the server answered 404 to. */
  readonly previousSessionId: string;
  /** The session the server assigned to the new `initialize`. */
  readonly sessionId: string;
}

/**
 * The JSON-RPC error code of a request that was in flight on a session the server forgot (it
 * restarted, or ended the session): the server may or may not have run it, so it is not sent
 * again. `data.outcomeUnknown` is true and `data.sessionId` names the session that was lost.
 */
export const REQUEST_OUTCOME_UNKNOWN = -32004;

/** The error response of a request whose outcome the lost session took with it. */
export function outcomeUnknownResponse(id: RequestId, sessionId: string): JsonRpcErrorResponse {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: REQUEST_OUTCOME_UNKNOWN,
      message:
        `The server restarted while this request was in flight; it may or may not have run (session ${sessionId} ` +
        'is gone, so its response is lost). It was not sent again: check before retrying.',
      data: { outcomeUnknown: true, sessionId },
    },
  };
}

/** What a renewal needs from its transport. */
export interface RenewalHost {
  readonly log: pino.Logger;
  readonly url: URL;
  sessionId: string | undefined;
  readonly protocolVersion: string | undefined;
  readonly closing: boolean;
  readonly maxMessageLength: number;
  /** Our headers, the credentials and `extra`, without session or revision: those of a first `initialize`. */
  plainHeaders(extra: Readonly<Record<string, string>>): Record<string, string>;
  /** The headers of a handshake-revision request (with the session id and the revision). */
  headers(extra: Readonly<Record<string, string>>): Record<string, string>;
  call(spec: HttpRequestSpec): HttpCall;
  settled(made: HttpCall): void;
  /** Opens the standalone GET stream again, as after the first handshake. */
  reopenStandalone(): Promise<void>;
  /** Runs `job` after `ms` unless the transport closed meanwhile. */
  later(ms: number, job: () => void): void;
  finish(reason: string, error: Error | undefined, terminate: boolean): void;
  /** Requests sent whose response has not arrived, by `keyOf` their id. */
  readonly pending: Set<string>;
  /** Delivers a message as if it had arrived from the server. */
  emit(frame: unknown): void;
  /** Closes with `SessionNotFoundError` (no new session). */
  failSession(gone: string): void;
}

const POST_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/**
 * How long the requests refused with the 404 wait, once the new session is open, for the answers
 * to the requests that `reconnected$` subscribers sent at once (restoring subscriptions and the
 * log level), so that they run on a session in the state the lost one had.
 */
const RESTORE_WAIT_MS = 5000;

/** The renewals of one transport: what the first handshake said, and the renewal under way. */
export class SessionRenewals {
  /** The params of the `initialize` the connection sent; a renewal sends them again. */
  private initializeParams: Record<string, unknown> | undefined;
  private count = 0;
  private readonly renewed = new Subject<Reconnection>();
  /** Set until the new session is open: POSTs of the handshake revisions wait for it. */
  renewing: Promise<boolean> | undefined;
  /** Set until the renewal is over, restoration included. */
  private running: Promise<boolean> | undefined;
  /** Set while `reconnected$` emits: the POSTs its subscribers make, which the renewal waits for. */
  restoring: Array<Promise<void>> | undefined;
  readonly reconnected$: Observable<Reconnection> = this.renewed.asObservable();

  constructor(private readonly host: RenewalHost) {}

  /** Keeps the params of an `initialize` the connection sends. */
  remember(initialize: JsonRpcMessage): void {
    this.initializeParams = (initialize as { params?: Record<string, unknown> }).params;
  }

  /**
   * Starts a session in place of `gone`, once however many requests found it gone; resolves true
   * when the new session is open (after `reconnected$` emitted), false when the transport closed.
   */
  renew(gone: string): Promise<boolean> {
    if (this.running) return this.running;
    if (this.host.closing) return Promise.resolve(false);
    // Another request already found this session gone, and a new one is open.
    if (this.host.sessionId !== gone) return Promise.resolve(true);
    const running = this.run(gone).finally(() => (this.running = undefined));
    this.running = running;
    this.renewing = running;
    return running;
  }

  /**
   * The server answered 404 to `gone` on a stream: the requests in `owed` were on a stream of it
   * and may have run, so they fail saying so, and a new session starts.
   */
  lost(gone: string, owed?: ReadonlySet<string>): void {
    if (owed) this.outcomeUnknown(owed, gone);
    void this.renew(gone);
  }

  /** Fails the requests in `keys`, owed on a stream of the lost session `gone`: they may have run. */
  outcomeUnknown(keys: ReadonlySet<string>, gone: string): void {
    const { host } = this;
    for (const key of [...keys]) {
      if (!host.pending.delete(key)) continue;
      const id = idOfKey(key);
      host.log.warn({ id, sessionId: gone }, 'the session was lost with this request in flight');
      host.emit(outcomeUnknownResponse(id, gone));
    }
  }

  /**
   * The server answered 404 to a POST that carried session `gone`: it ran none of its requests,
   * so `again` sends them on the new session (not a POST that started a session: that fails).
   */
  async refused(
    gone: string,
    requests: ReadonlyArray<JsonRpcMessage & { id: RequestId; method: string }>,
    again: (messages: JsonRpcMessage | JsonRpcMessage[]) => void,
    reinitialize: boolean,
  ): Promise<void> {
    const { host } = this;
    if (!reinitialize || requests.some((r) => r.method === 'initialize')) {
      if (host.sessionId === gone) host.failSession(gone);
      return;
    }
    if (!(await this.renew(gone)) || host.closing) return;
    const unanswered = requests.filter((r) => host.pending.has(keyOf(r.id)));
    if (unanswered.length === 0) return;
    host.log.info(
      { ids: unanswered.map((r) => r.id) },
      'sending again on the new session: the server did not run them',
    );
    again(unanswered.length === 1 ? (unanswered[0] as JsonRpcMessage) : unanswered);
  }

  complete(): void {
    this.renewed.complete();
  }

  private async run(gone: string): Promise<boolean> {
    const { host } = this;
    host.log.warn({ sessionId: gone, status: 404 }, 'the server no longer knows the session; starting a new one');
    host.sessionId = undefined;
    let sessionId: string;
    try {
      if (this.initializeParams === undefined) throw new Error('no initialize was sent on this transport');
      sessionId = await this.initialize(this.initializeParams);
      host.sessionId = sessionId;
      await this.initialized();
      await host.reopenStandalone();
    } catch (error) {
      this.renewing = undefined;
      if (!host.closing) {
        const why = error instanceof Error ? error.message : String(error);
        host.log.warn({ err: error }, 'starting a new session failed');
        host.finish(
          'the server ended or forgot the session (HTTP 404), and starting a new one failed',
          new TransportError(`${new SessionNotFoundError(gone).message} Starting a new session failed: ${why}`, {
            cause: error,
          }),
          false,
        );
      }
      return false;
    }
    host.log.info({ previousSessionId: gone, sessionId }, 'new session started');
    const restoring: Array<Promise<void>> = [];
    this.restoring = restoring;
    this.renewing = undefined;
    try {
      this.renewed.next({ previousSessionId: gone, sessionId });
    } finally {
      this.restoring = undefined;
    }
    if (restoring.length > 0) {
      const bound = new Promise<void>((resolve) => host.later(RESTORE_WAIT_MS, resolve));
      await Promise.race([Promise.all(restoring), bound]);
    }
    return !host.closing;
  }

  /** POSTs `initialize` without a session id; resolves with the session the server assigned. */
  private async initialize(params: Record<string, unknown>): Promise<string> {
    const { host } = this;
    const id = `rxmcp-reinitialize-${++this.count}`;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params });
    const response = await this.exchange({ method: 'POST', headers: host.plainHeaders(POST_HEADERS), body }, (a) =>
      answerTo(a, id, host.maxMessageLength),
    );
    const { status, sessionId, answer } = response;
    if (status < 200 || status > 299) throw new Error(`the server answered HTTP ${status} to initialize`);
    if (answer === undefined) throw new Error('the server sent no answer to initialize');
    if ('error' in answer) throw new Error(`the server refused initialize: ${answer.error.message}`);
    const revision = answer.result.protocolVersion;
    if (revision !== host.protocolVersion) {
      throw new Error(
        `the server now speaks revision ${String(revision)}, not ${String(host.protocolVersion)} as before`,
      );
    }
    if (sessionId === undefined) throw new Error('the server assigned no session');
    return sessionId;
  }

  /** POSTs `notifications/initialized` on the new session. */
  private async initialized(): Promise<void> {
    const body = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const { status } = await this.exchange({ method: 'POST', headers: this.host.headers(POST_HEADERS), body }, (a) => {
      a.discard();
      return Promise.resolve(undefined);
    });
    if (status < 200 || status > 299)
      throw new Error(`the server answered HTTP ${status} to notifications/initialized`);
  }

  /** One HTTP call that close aborts, its answer read by `read`. */
  private async exchange<T>(
    spec: HttpRequestSpec,
    read: (answer: HttpAnswer) => Promise<T>,
  ): Promise<{ status: number; sessionId: string | undefined; answer: T }> {
    const made = this.host.call(spec);
    try {
      const answer = await made.answer;
      return { status: answer.status, sessionId: answer.header('mcp-session-id'), answer: await read(answer) };
    } finally {
      this.host.settled(made);
    }
  }
}

type InitializeAnswer = { result: Record<string, unknown> } | { error: { message: string } };

/** The response with `id` in a JSON or SSE answer; undefined when there is none. */
async function answerTo(answer: HttpAnswer, id: string, maxLength: number): Promise<InitializeAnswer | undefined> {
  if (!answer.ok) {
    answer.discard();
    return undefined;
  }
  const texts: string[] = [];
  if ((answer.header('content-type') ?? '').includes('text/event-stream')) {
    const parser = createSseParser((event) => texts.push(event.data), { maxEventLength: maxLength });
    await answer.read((text) => parser.push(text));
    parser.end();
  } else texts.push(await answer.text(maxLength));
  for (const text of texts) {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof message === 'object' && message !== null && (message as { id?: unknown }).id === id) {
      return message as InitializeAnswer;
    }
  }
  return undefined;
}
