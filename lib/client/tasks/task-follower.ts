/**
 * Following one task to its end, whatever the design: the status it goes through (from polling
 * `tasks/get` at the server's poll interval, and from the server's status notifications), the
 * input it asks for (tasks extension: answered with `tasks/update`), the partial results its
 * answers carry (tasks extension, SEP-2998), and its result (2025-11-25: `tasks/result`; tasks
 * extension: inlined in the terminal state).
 */
import type { Logger } from 'pino';
import { asyncScheduler, filter, map, Observable, Subscription, switchMap, timer } from '../../rx/rxjs';
import type { OperatorFunction, SchedulerLike, Subscriber } from '../../rx/rxjs';
import { ProtocolError } from '../../jsonrpc/errors';
import type { CallToolResult } from '../../schema/tools';
import type { InputRequests } from '../input-requests';
import { TaskCancelledError } from './task-errors';
import { isOlder, TERMINAL_STATUSES } from './task-wire';
import type { SnapshotPartials, TaskInfo, TaskSnapshot } from './task-wire';

/** The task's status changed (the first event gives the state the task was found in). */
export interface TaskStatusEvent {
  readonly type: 'status';
  readonly task: TaskInfo;
}

/**
 * The server asked for input, which the client answers with its sampling, elicitation and roots
 * handlers: before the task exists (tasks extension composed with multi round-trip requests; no
 * `task` then), or while it waits in `input_required` (answered with `tasks/update`).
 */
export interface TaskInputEvent {
  readonly type: 'input_required';
  readonly task?: TaskInfo;
  readonly requests: InputRequests;
}

/**
 * The result of the request the task stands for; always the last event. `task` is the last state
 * seen, and is absent when the server answered at once without making a task (tasks extension).
 */
export interface TaskResultEvent<R = CallToolResult> {
  readonly type: 'result';
  readonly task?: TaskInfo;
  readonly result: R;
}

/**
 * A piece of the tool's output while its task runs (SEP-2998 partial results): when both sides
 * declared partial results, in `seq` order, each once, before the result. A 2025-11-25 task's
 * pieces come in its session; a tasks-extension task's with its `tasks/get` answers, from what the
 * server keeps (a bounded number: see `missed`). The result is still the whole answer.
 */
export interface TaskPartialEvent {
  /** The kind of event. */
  readonly type: 'partial';
  /** The task the piece belongs to. */
  readonly taskId: string;
  /** Its place among the call's pieces, from 0. */
  readonly seq: number;
  /** What the piece holds, as content blocks. */
  readonly content?: readonly Record<string, unknown>[];
  /** What the piece holds, structured (merged as the tool documents). */
  readonly structuredContent?: Record<string, unknown>;
  /** The server's hint that this is the last piece. */
  readonly final?: boolean;
  /**
   * Tasks extension: how many pieces just before this one this follow will never see, when some
   * are missing: the server dropped the oldest of what it keeps per task before they were read
   * (its `dropped` count says so), or they went with the request before the call became a task.
   */
  readonly missed?: number;
}

/** What following a task emits: status, input and partial events, then one result event. */
export type TaskEvent<R = CallToolResult> = TaskStatusEvent | TaskInputEvent | TaskPartialEvent | TaskResultEvent<R>;

/** How one design reaches a task (see the 2025-11-25 and tasks-extension drivers). */
export interface TaskDriver {
  /**
   * `tasks/get`; `nextSeq` (tasks extension) asks for the task's partial results from that `seq`
   * on, the client having those before it.
   */
  get(taskId: string, nextSeq?: number): Observable<TaskSnapshot>;
  /** The task's states the server pushes (status notifications); hot, never completes on its own. */
  pushed(taskId: string): Observable<TaskSnapshot>;
  /**
   * 2025-11-25 only: `tasks/result`, which waits for the task's end and answers its payload;
   * `untilEnd` when the task is not over yet (the request then waits as long as the task runs).
   */
  readonly fetchResult?: (taskId: string, untilEnd: boolean) => Observable<Record<string, unknown>>;
  /** Tasks extension only: answers the requests with the client's handlers and sends `tasks/update`. */
  readonly answerInput?: (taskId: string, requests: InputRequests) => Observable<unknown>;
  /** `tasks/cancel`. */
  cancel(taskId: string): Observable<unknown>;
  readonly log: Logger;
}

/** How a task is followed. */
export interface FollowOptions<R> {
  /** Between polls when the server suggests no interval. Default 1000 ms. */
  readonly pollIntervalMs?: number;
  /** Send `tasks/cancel` when the subscriber leaves before the end. Default false: the task runs on. */
  readonly cancelOnUnsubscribe?: boolean;
  /** Checks the payload and gives it its type; throws to fail the follow. */
  readonly checkResult: (result: Record<string, unknown>) => R;
  /** Where the polls are timed. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * Tasks extension: the token the call asked for partial results with; only pieces that carry it
   * become `partial` events. Without one (a task resumed by its id), every piece of the task does.
   */
  readonly partialResultToken?: string | number;
}

/** Between polls when the server suggests none. */
export const DEFAULT_POLL_INTERVAL_MS = 1000;
/** The shortest wait between polls, whatever the server suggests (a server saying 0 gets no busy loop). */
export const MIN_POLL_INTERVAL_MS = 100;

/** The state of one subscription's follow. */
class TaskFollower<R> {
  private current: TaskInfo | undefined;
  private readonly held = new Subscription();
  /** The wait before the next poll, or the poll in flight. */
  private poll: Subscription | undefined;
  private polling = false;
  private fetching = false;
  private readonly answered = new Set<string>();
  private done = false;
  /** The `seq` of the next piece of partial results to emit (tasks extension). */
  private nextSeq = 0;

  constructor(
    private readonly driver: TaskDriver,
    private readonly taskId: string,
    private readonly subscriber: Subscriber<TaskEvent<R>>,
    private readonly options: FollowOptions<R>,
  ) {}

  start(first: TaskSnapshot | undefined): void {
    this.held.add(
      this.driver.pushed(this.taskId).subscribe({
        next: (snapshot) => this.see(snapshot, false),
        error: (error: unknown) => this.fail(error),
      }),
    );
    if (first) this.see(first, false);
    else this.schedulePoll(0);
  }

  stop(): void {
    const early = !this.done;
    this.done = true;
    this.held.unsubscribe();
    this.poll?.unsubscribe();
    if (early && this.options.cancelOnUnsubscribe) {
      this.driver.cancel(this.taskId).subscribe({
        error: (error: unknown) => this.driver.log.warn({ err: error, taskId: this.taskId }, 'tasks/cancel failed'),
      });
    }
  }

  /** A state from a poll (`polled`), a notification or the task's creation. */
  private see(snapshot: TaskSnapshot, polled: boolean): void {
    const { info } = snapshot;
    if (this.done || info.taskId !== this.taskId || isOlder(info, this.current)) return;
    const previous = this.current;
    this.current = info;
    // The pieces came before the state that carries them: before a final one's result, too.
    if (snapshot.partials) this.emitPieces(snapshot.partials);
    if (!previous || previous.status !== info.status || previous.statusMessage !== info.statusMessage) {
      this.driver.log.debug({ taskId: info.taskId, status: info.status }, 'task status');
      this.subscriber.next({ type: 'status', task: info });
    }
    if (info.status === 'cancelled') {
      this.fail(new TaskCancelledError(info.taskId, info.statusMessage));
      return;
    }
    if (this.driver.fetchResult) {
      // Basic → Utilities → Tasks: on input_required, call tasks/result at once (its stream carries
      // the server's requests); on a terminal status, it answers the payload.
      if (info.status !== 'working') this.fetch(this.driver.fetchResult, !TERMINAL_STATUSES.has(info.status));
    } else this.settleInline(snapshot, polled);
    if (!this.done && !TERMINAL_STATUSES.has(info.status)) this.schedulePoll(this.intervalOf(info));
  }

  /** Emits the pieces not emitted yet, in `seq` order, each once; a gap before one is its `missed`. */
  private emitPieces(partials: SnapshotPartials): void {
    const token = this.options.partialResultToken;
    const fresh = partials.pieces
      .filter(({ token: carried }) => token === undefined || carried === token)
      .filter(({ params }) => params.seq >= this.nextSeq && (params.taskId ?? this.taskId) === this.taskId)
      .sort((a, b) => a.params.seq - b.params.seq);
    for (const { params } of fresh) {
      if (params.seq < this.nextSeq) continue; // the same piece twice in one answer
      const { taskId: _taskId, ...piece } = params;
      const missed = params.seq - this.nextSeq;
      this.nextSeq = params.seq + 1;
      this.subscriber.next({ type: 'partial', taskId: this.taskId, ...piece, ...(missed > 0 ? { missed } : {}) });
    }
  }

  /** The tasks extension: the outcome is in the task itself. */
  private settleInline(snapshot: TaskSnapshot, polled: boolean): void {
    const { status } = snapshot.info;
    if (status === 'completed' || status === 'failed') {
      if (snapshot.result && status === 'completed') this.finish(snapshot.result);
      else if (snapshot.error && status === 'failed') this.fail(snapshot.error);
      // A notification may leave the outcome out: ask for it.
      else if (!polled) this.schedulePoll(0);
      else
        this.fail(
          new ProtocolError(
            `Task ${this.taskId} is ${status} but tasks/get carried no ${status === 'completed' ? 'result' : 'error'}`,
          ),
        );
    } else if (status === 'input_required' && snapshot.inputRequests && this.driver.answerInput) {
      this.answer(this.driver.answerInput, snapshot.inputRequests);
    }
  }

  /** Answers the requests not answered yet, then polls at once to see the task move on. */
  private answer(answerInput: NonNullable<TaskDriver['answerInput']>, all: InputRequests): void {
    const fresh = Object.entries(all).filter(([key]) => !this.answered.has(key));
    if (fresh.length === 0) return;
    for (const [key] of fresh) this.answered.add(key);
    const requests: InputRequests = Object.fromEntries(fresh);
    this.subscriber.next({ type: 'input_required', ...(this.current ? { task: this.current } : {}), requests });
    this.held.add(
      answerInput(this.taskId, requests).subscribe({
        error: (error: unknown) => this.fail(error),
        complete: () => this.schedulePoll(0),
      }),
    );
  }

  private fetch(fetchResult: NonNullable<TaskDriver['fetchResult']>, untilEnd: boolean): void {
    if (this.fetching) return;
    this.fetching = true;
    this.held.add(
      fetchResult(this.taskId, untilEnd).subscribe({
        next: (result) => this.finish(result),
        error: (error: unknown) => this.fail(error),
      }),
    );
  }

  private intervalOf(info: TaskInfo): number {
    const suggested = info.pollIntervalMs ?? this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    return Math.max(MIN_POLL_INTERVAL_MS, suggested);
  }

  /** Polls after `delayMs`, restarting a wait under way; a poll in flight is left to answer. */
  private schedulePoll(delayMs: number): void {
    if (this.done || this.polling) return;
    this.poll?.unsubscribe();
    this.poll = timer(delayMs, this.options.scheduler ?? asyncScheduler)
      .pipe(
        switchMap(() => {
          this.polling = true;
          return this.driver.get(this.taskId, this.nextSeq);
        }),
      )
      .subscribe({
        next: (snapshot) => {
          this.polling = false;
          this.see(snapshot, true);
        },
        error: (error: unknown) => this.fail(error),
      });
  }

  private finish(raw: Record<string, unknown>): void {
    if (this.done) return;
    let result: R;
    try {
      result = this.options.checkResult(raw);
    } catch (error) {
      this.fail(error);
      return;
    }
    this.done = true;
    this.subscriber.next({ type: 'result', ...(this.current ? { task: this.current } : {}), result });
    this.subscriber.complete();
  }

  private fail(error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.subscriber.error(error);
  }
}

/**
 * Follows a task: cold; each subscription polls `tasks/get` (first at once when only the id is
 * given, as when resuming after a restart; else after the server's poll interval), listens to
 * its status notifications, emits a status event on each change (states older than the last seen
 * are ignored), answers the input it asks for, and ends with the result event. Errors:
 * `TaskCancelledError` when the task ends cancelled, the request's `JsonRpcError` when it failed,
 * the server's errors (an unknown or expired task is -32602), `ProtocolError` for malformed answers.
 * Unsubscribing stops polling and leaves the task running, unless `cancelOnUnsubscribe`.
 */
export function followTask<R>(
  driver: TaskDriver,
  start: TaskSnapshot | string,
  options: FollowOptions<R>,
): Observable<TaskEvent<R>> {
  const taskId = typeof start === 'string' ? start : start.info.taskId;
  return new Observable<TaskEvent<R>>((subscriber) => {
    const follower = new TaskFollower(driver, taskId, subscriber, options);
    follower.start(typeof start === 'string' ? undefined : start);
    return () => follower.stop();
  });
}

/** Keeps only the result of a task: `client.tasks.callTool(...).pipe(taskResult())`. */
export function taskResult<R = CallToolResult>(): OperatorFunction<TaskEvent<R>, R> {
  return (source) =>
    source.pipe(
      filter((event): event is TaskResultEvent<R> => event.type === 'result'),
      map((event) => event.result),
    );
}
