/**
 * Follows the JSON-RPC requests a server answers, from the message that asks to the response that
 * answers (or the cancellation or closing that ends it without one), to count them in
 * {@link ServerMetrics} and write one log line per call. It sees messages only: the transport that
 * carries them tells it what came in and what went out.
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../jsonrpc/errors';
import { ChannelCalls } from './channel-calls';
import type { CallOutcome, ServerMetrics } from './server-metrics';

/** What the tracker needs of the channel a request came on: a session's transport, or none. */
export interface CallChannel {
  readonly sessionId?: string | undefined;
}

/** A request on its way: what it asked, and since when. */
export interface PendingCall {
  readonly method: string;
  /** The tool or prompt it names (`tools/call`, `prompts/get`). */
  readonly name: string | undefined;
  readonly start: number;
  readonly sessionId: string | undefined;
}

/** Options of a {@link CallTracker}. */
export interface CallTrackerOptions {
  /** Where calls are counted; none: calls are only logged. */
  readonly metrics?: ServerMetrics | undefined;
  /** Where each call's line goes, at info; none: no lines. */
  readonly log?: Logger | undefined;
  /** The upstream that serves a tool or prompt of this name (a proxy's), for the log line. */
  readonly upstreamOf?: ((name: string) => string | undefined) | undefined;
}

interface MessageShape {
  readonly id?: string | number | null;
  readonly method?: unknown;
  readonly params?: { readonly name?: unknown; readonly requestId?: unknown } | undefined;
  readonly result?: { readonly isError?: unknown } | undefined;
  readonly error?: { readonly code?: unknown; readonly data?: unknown } | undefined;
}

/** Follows calls per channel (a session's transport, or a modern exchange). */
export class CallTracker {
  private readonly pending = new WeakMap<CallChannel, ChannelCalls<PendingCall>>();
  /** The channel seen last and its calls: a request and its response find them without a lookup. */
  private lastChannel: CallChannel | undefined;
  private lastCalls: ChannelCalls<PendingCall> | undefined;
  /**
   * The clock calls are timed on: the global `performance` as it is when the tracker is made (a
   * fake clock installed before then is read). Node defines that global by a getter, which costs
   * each read more than the clock itself, so it is read once.
   */
  private readonly clock: { now(): number } = performance;

  constructor(private readonly options: CallTrackerOptions) {}

  /** A message that arrived on `channel` (or a batch, as an array of them): its requests start. */
  received(channel: CallChannel, message: unknown): void {
    if (!Array.isArray(message)) this.arrived(channel, message as MessageShape);
    else for (const item of message as MessageShape[]) this.arrived(channel, item);
  }

  /** One message that arrived on `channel`: a request starts, a cancellation ends one. */
  private arrived(channel: CallChannel, message: MessageShape): void {
    if (typeof message !== 'object' || message === null || typeof message.method !== 'string') return;
    if (message.id !== undefined && message.id !== null) {
      let calls = this.callsOf(channel);
      if (calls === undefined) {
        this.pending.set(channel, (calls = new ChannelCalls()));
        this.lastChannel = channel;
        this.lastCalls = calls;
      }
      // A second request with an id in flight is refused by the transport: the first one goes on.
      if (calls.add(message.id, this.begin(message.method, message.params, channel)) && this.options.metrics)
        this.options.metrics.inFlight++;
    } else if (message.method === 'notifications/cancelled') {
      const calls = this.callsOf(channel);
      const id = message.params?.requestId;
      const call = typeof id === 'string' || typeof id === 'number' ? calls?.take(id) : undefined;
      if (call !== undefined) this.end(call, 'cancelled');
    }
  }

  /** A message sent on `channel`: a response ends its request. */
  sent(channel: CallChannel, message: unknown): void {
    const calls = this.callsOf(channel);
    if (calls === undefined || calls.size === 0) return;
    if (!Array.isArray(message)) this.answer(calls, message as MessageShape);
    else for (const item of message as MessageShape[]) this.answer(calls, item);
  }

  /** Ends the call `response` answers, if it is a response to one of `calls`. */
  private answer(calls: ChannelCalls<PendingCall>, response: MessageShape): void {
    if (response.method !== undefined || response.id === undefined || response.id === null) return;
    const call = calls.take(response.id);
    if (call !== undefined) this.end(call, this.outcomeOf(response));
  }

  /** Counts a refusal by the quota `limit` (the transport's own: `sessions`, `sessions_per_principal`). */
  limitHit(limit: string): void {
    this.options.metrics?.limitHit(limit);
  }

  /** `channel` closed: the requests it still held end unanswered. */
  closed(channel: CallChannel): void {
    const calls = this.pending.get(channel);
    if (this.lastChannel === channel) this.lastChannel = this.lastCalls = undefined;
    if (calls === undefined) return;
    this.pending.delete(channel);
    for (const call of calls.drain()) this.end(call, 'closed');
  }

  private callsOf(channel: CallChannel): ChannelCalls<PendingCall> | undefined {
    if (channel === this.lastChannel) return this.lastCalls;
    const calls = this.pending.get(channel);
    if (calls !== undefined) {
      this.lastChannel = channel;
      this.lastCalls = calls;
    }
    return calls;
  }

  /** Starts a call outside any channel (a modern request); end it with {@link CallTracker.answered} or {@link CallTracker.end}. */
  start(method: string, params: MessageShape['params'], channel?: CallChannel): PendingCall {
    if (this.options.metrics) this.options.metrics.inFlight++;
    return this.begin(method, params, channel);
  }

  /** A call of `method`, starting now, not yet counted in flight. */
  private begin(method: string, params: MessageShape['params'], channel: CallChannel | undefined): PendingCall {
    const name = method === 'tools/call' || method === 'prompts/get' ? params?.name : undefined;
    return {
      method,
      name: typeof name === 'string' ? name : undefined,
      start: this.clock.now(),
      sessionId: channel?.sessionId,
    };
  }

  /** Ends `call` with the response that answered it. */
  answered(call: PendingCall, response: unknown): void {
    this.end(call, this.outcomeOf(response as MessageShape));
  }

  /** Ends `call`: counts it and writes its line. */
  end(call: PendingCall, outcome: CallOutcome): void {
    const seconds = (this.clock.now() - call.start) / 1000;
    const metrics = this.options.metrics;
    if (metrics) {
      metrics.inFlight--;
      metrics.observe(call.method, outcome, seconds);
    }
    const { log, upstreamOf } = this.options;
    if (log === undefined || !log.isLevelEnabled('info')) return;
    const upstream = call.name === undefined ? undefined : upstreamOf?.(call.name);
    log.info(
      {
        method: call.method,
        ...(call.name !== undefined ? { tool: call.name } : {}),
        ...(upstream !== undefined ? { upstream } : {}),
        ...(call.sessionId !== undefined ? { sessionId: call.sessionId } : {}),
        durationMs: Math.round(seconds * 1e6) / 1000,
        outcome,
      },
      'call',
    );
  }

  /** How a response ended its call; a refusal by a quota is counted as a limit hit. */
  private outcomeOf(response: MessageShape): CallOutcome {
    if (response.error !== undefined) {
      if (response.error.code === ErrorCode.RateLimited) this.options.metrics?.limitHit(quotaOf(response.error.data));
      return 'error';
    }
    return response.result?.isError === true ? 'tool_error' : 'ok';
  }
}

/**
 * The `limit` label of a quota refusal (-32029), from the `data` the server gave it: a rate or
 * concurrency limit by its name (`RateLimitErrorData.name`: `requests`, `concurrent`, or the name
 * it was given), the transport's and the task quotas by kind.
 */
function quotaOf(data: unknown): string {
  const { quota, name } = (data ?? {}) as { quota?: unknown; name?: unknown };
  if (typeof name === 'string' && name !== '') return name;
  if (quota === 'listen streams per principal') return 'listen_streams';
  // The task quotas name whose tasks are counted (lib/server/tasks/task-quota.ts).
  if (quota === 'session' || quota === 'principal' || quota === 'server') return 'tasks';
  return 'rate';
}
