/**
 * Runs tasks: a task's record follows what its work emits (progress becomes its status message,
 * the last value its result, an error its failure), cancelling it unsubscribes the work, and input
 * it waits on is parked in its record until the client answers.
 */
import type { Logger } from 'pino';
import { Observable, Subject } from '../../rx/rxjs';
import type { SchedulerLike, Subscriber, Subscription } from '../../rx/rxjs';
import { LogUpdate, PartialResult, ProgressUpdate, TaskStart } from '../../connection/handler-events';
import { JsonRpcError } from '../../jsonrpc/errors';
import { toValidationIssues } from '../../validation/issues';
import { nodeCrypto } from '../../base/node-builtins';
import { inputResponseSchemaFor } from '../../schema/input-requests';
import type { TaskStatus } from '../../schema/tasks';
import { inputCapabilityOf } from '../input-round';
import type { TaskQuota } from './task-quota';
import { isTerminalStatus } from './task-store';
import { firstText } from '../results';
import type { TaskHandle, TaskSpec } from './task-spec';
import type { TaskInputRequest, TaskRecord, TaskStore } from './task-store';

export type { TaskHandle, TaskSpec } from './task-spec';

/** How tasks are run and kept. */
export interface TaskRunnerOptions {
  readonly store: TaskStore;
  readonly scheduler: SchedulerLike;
  /** The time to live of a task whose creator asked for none. */
  readonly defaultTtlMs: number;
  /** The longest time to live granted, whatever the creator asked for. */
  readonly maxTtlMs: number;
  /** The polling interval suggested to clients. */
  readonly pollIntervalMs: number;
  readonly logger: Logger;
  /** How many tasks each session and each principal may run at once; no limit but the store's when absent. */
  readonly quota?: TaskQuota;
}

interface Pending {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly subscriber: Subscriber<unknown>;
}

/** A running task's state in this process. */
class LiveTask implements TaskHandle {
  record: TaskRecord;
  writes: Promise<void> = Promise.resolve();
  /** Ends the task when its time to live has passed. */
  expiry: Subscription | undefined;
  /** Whether the task still holds a slot of its caller's quota. */
  slot = false;
  private subscription: Subscription | undefined;
  private readonly abort = new AbortController();
  private readonly pending = new Map<string, Pending>();
  private asked = 0;
  private waiting = 0;
  private last: unknown;
  private partials: number;

  constructor(
    private readonly runner: TaskRunner,
    readonly created: TaskRecord,
    readonly spec: TaskSpec,
  ) {
    this.record = created;
    this.partials = spec.firstSeq ?? 0;
  }

  get taskId(): string {
    return this.record.taskId;
  }
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  hold(subscription: Subscription): void {
    if (isTerminalStatus(this.record.status)) subscription.unsubscribe();
    else this.subscription = subscription;
  }

  next(value: unknown): void {
    if (value instanceof ProgressUpdate) this.progress(value.progress, value.total, value.message);
    else if (value instanceof LogUpdate) this.spec.onLog?.(value);
    else if (value instanceof PartialResult && this.spec.onPartial) {
      if (!isTerminalStatus(this.record.status)) this.spec.onPartial(value, this.partials++, this.taskId);
    } else if (value instanceof PartialResult) this.progress((this.partials += 1), undefined, value.text());
    else if (!(value instanceof TaskStart)) this.last = value;
  }

  error(error: unknown): void {
    this.runner.change(this, { status: 'failed', error: this.runner.toErrorObject(error, this.taskId) });
  }

  complete(): void {
    const result = this.last;
    if (typeof result !== 'object' || result === null || Array.isArray(result)) {
      this.error(JsonRpcError.internalError('Internal error: the task produced no result'));
      return;
    }
    const record = result as Record<string, unknown>;
    // 2025-11-25: a tool result with isError fails the task; the extension keeps `failed` for
    // protocol errors and reports a tool's error as a completed task whose result says so.
    if (this.spec.design === 'core' && record.isError === true) {
      this.runner.change(this, { status: 'failed', result: record, statusMessage: firstText(record) });
    } else {
      this.runner.change(this, { status: 'completed', result: record });
    }
  }

  progress(progress: number, total?: number, message?: string): void {
    if (isTerminalStatus(this.record.status)) return;
    const statusMessage = message ?? (total === undefined ? `${progress}` : `${progress}/${total}`);
    this.runner.change(this, { statusMessage });
    this.spec.onProgress?.(new ProgressUpdate(progress, total, message));
  }

  ask<T>(method: string, params: Record<string, unknown> | undefined, inputKey?: string): Observable<T> {
    return new Observable<unknown>((subscriber) => {
      const key = inputKey ?? `${inputCapabilityOf(method) ?? 'input'}-${this.asked++}`;
      this.pending.set(key, { method, params: params ?? {}, subscriber });
      this.runner.change(this, { status: 'input_required', inputRequests: this.inputRequests() });
      return () => {
        if (this.pending.delete(key) && !isTerminalStatus(this.record.status)) this.afterAnswer();
      };
    }) as Observable<T>;
  }

  waitingOn<T>(request: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      if (this.waiting++ === 0) this.runner.change(this, { status: 'input_required' });
      const inner = request.subscribe(subscriber);
      return () => {
        inner.unsubscribe();
        if (--this.waiting === 0) this.runner.change(this, { status: 'working' });
      };
    });
  }

  /** Delivers the answers to pending input requests; -32602 (nothing delivered) when one does not fit. */
  answer(responses: Record<string, unknown>): void {
    const delivered: [Pending, unknown][] = [];
    for (const [key, answer] of Object.entries(responses)) {
      const pending = this.pending.get(key);
      if (pending === undefined) continue; // answers to keys never asked are ignored
      const schema = inputResponseSchemaFor(pending.method);
      const parsed = schema ? schema.safeParse(answer) : { success: true as const, data: answer };
      if (!parsed.success) {
        throw JsonRpcError.invalidParams(
          toValidationIssues(parsed.error).map((issue) => ({
            path: `inputResponses.${key}${issue.path ? `.${issue.path}` : ''}`,
            message: issue.message,
          })),
        );
      }
      delivered.push([pending, parsed.data]);
    }
    for (const [pending] of delivered) {
      for (const [key, entry] of this.pending) if (entry === pending) this.pending.delete(key);
    }
    if (delivered.length > 0) this.afterAnswer();
    for (const [pending, answer] of delivered) {
      pending.subscriber.next(answer);
      pending.subscriber.complete();
    }
  }

  /** Stops the work: the record says cancelled first, then the work is unsubscribed. */
  stop(): void {
    this.pending.clear();
    this.abort.abort('task cancelled');
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  private afterAnswer(): void {
    this.runner.change(
      this,
      this.pending.size > 0
        ? { inputRequests: this.inputRequests() }
        : { status: this.waiting > 0 ? 'input_required' : 'working', inputRequests: undefined },
    );
  }

  private inputRequests(): Record<string, TaskInputRequest> {
    return Object.fromEntries([...this.pending].map(([key, { method, params }]) => [key, { method, params }]));
  }
}

type Change = Partial<Pick<TaskRecord, 'status' | 'statusMessage' | 'result' | 'error' | 'inputRequests' | 'partials'>>;

/** Creates, runs, cancels and answers the tasks of one server. */
export class TaskRunner {
  private readonly live = new Map<string, LiveTask>();
  /** The latest store write of each task with one in progress (a final task's last write included). */
  private readonly writing = new Map<string, Promise<void>>();
  /** Every record of a task that reached a final status. */
  readonly settled$ = new Subject<TaskRecord>();

  constructor(private readonly options: TaskRunnerOptions) {}

  get store(): TaskStore {
    return this.options.store;
  }

  /** Creates a task (stored before this resolves) and returns its handle; its work is attached by the caller. */
  async create(spec: TaskSpec): Promise<TaskHandle> {
    const { defaultTtlMs, maxTtlMs, pollIntervalMs, scheduler } = this.options;
    const asked = spec.requestedTtlMs;
    const ttlMs = Math.max(1, Math.floor(Math.min(asked !== undefined && asked > 0 ? asked : defaultTtlMs, maxTtlMs)));
    const now = scheduler.now();
    // The slot is taken before the store answers, so concurrent creations cannot pass the quota.
    this.options.quota?.take(spec.owner, spec.session);
    const record: TaskRecord = {
      taskId: nodeCrypto().randomUUID(),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
      pollIntervalMs,
      method: spec.method,
      design: spec.design,
      ...(spec.owner === undefined ? {} : { owner: spec.owner }),
      ...(spec.session === undefined ? {} : { session: spec.session }),
    };
    try {
      await this.options.store.put(record);
    } catch (error) {
      this.options.quota?.give(spec.owner, spec.session);
      throw error;
    }
    const task = new LiveTask(this, record, spec);
    task.slot = this.options.quota !== undefined;
    this.live.set(record.taskId, task);
    task.expiry = scheduler.schedule(() => void this.expire(task), ttlMs);
    return task;
  }

  /**
   * A task's time to live has passed (2025-11-25: receivers may then delete it, whatever its
   * status): work still running is unsubscribed, and the task is forgotten.
   */
  private async expire(task: LiveTask): Promise<void> {
    if (this.live.get(task.taskId) === task) {
      this.leave(task);
      task.stop();
      this.options.logger.debug({ taskId: task.taskId }, 'task expired while running');
    }
    await task.writes;
    await this.options.store.delete(task.taskId);
  }

  /** The task's record once every change made so far is stored; undefined when unknown (or expired). */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    await this.writing.get(taskId);
    return this.options.store.get(taskId);
  }

  /**
   * Cancels a task: its record says `cancelled`, then its work is unsubscribed. Resolves with the
   * record, or undefined when the task was already final (or unknown, then `get` says so).
   */
  async cancel(taskId: string): Promise<TaskRecord | undefined> {
    const task = this.live.get(taskId);
    if (task) {
      if (isTerminalStatus(task.record.status)) return undefined;
      this.change(task, { status: 'cancelled', inputRequests: undefined });
      task.stop();
      await task.writes;
      return task.record;
    }
    // A task this process does not run (another process, or one that restarted): only its record changes.
    const record = await this.options.store.get(taskId);
    if (record === undefined || isTerminalStatus(record.status)) return undefined;
    const cancelled: TaskRecord = { ...record, status: 'cancelled', lastUpdatedAt: this.options.scheduler.now() };
    await this.options.store.put(cancelled);
    this.settled$.next(cancelled);
    return cancelled;
  }

  /** Delivers answers to a task's pending input requests (extension design); false when it runs elsewhere. */
  async answer(taskId: string, responses: Record<string, unknown>): Promise<boolean> {
    const task = this.live.get(taskId);
    if (!task) return false;
    task.answer(responses);
    await task.writes;
    return true;
  }

  /** Applies a change to a running task's record (never to a final one) and stores it. */
  change(task: LiveTask, change: Change): void {
    if (isTerminalStatus(task.record.status)) return;
    const next: Record<string, unknown> = { ...task.record, ...change, lastUpdatedAt: this.options.scheduler.now() };
    for (const key of Object.keys(change)) if (next[key] === undefined) delete next[key];
    const record = next as unknown as TaskRecord;
    const status: TaskStatus = record.status;
    task.record = record;
    // Records are cumulative: a piece of partial results already overtaken is stored with what overtook it.
    const overtaken = () => change.partials !== undefined && task.record !== record;
    const written = task.writes
      .then(() => (overtaken() ? undefined : this.options.store.put(record)))
      .catch((error: unknown) => this.options.logger.error({ err: error, taskId: record.taskId }, 'task not stored'));
    task.writes = written;
    this.writing.set(record.taskId, written);
    void written.then(() => {
      if (this.writing.get(record.taskId) === written) this.writing.delete(record.taskId);
    });
    const statusChanged = change.status !== undefined;
    if (isTerminalStatus(status)) {
      this.leave(task);
      // A final task stays until its time to live passes: the store forgets it then.
      task.expiry?.unsubscribe();
      void task.writes.then(() => this.settled$.next(record));
    }
    if (statusChanged) task.spec.onChange?.(record);
  }

  /**
   * Changes what a running task keeps of its partial results (the extension design: its caller
   * reads them with `tasks/get`); nothing for a task that is final or runs elsewhere.
   */
  keepPartials(taskId: string, keep: (kept: TaskRecord['partials']) => TaskRecord['partials']): void {
    const task = this.live.get(taskId);
    if (task !== undefined) this.change(task, { partials: keep(task.record.partials) });
  }

  /**
   * A session ended: the tasks it started with no principal (which nobody else may see) are
   * cancelled and forgotten, so their slots are free at once; a principal's tasks run on, for
   * that principal's other sessions. The session's quota ends with it.
   */
  async endSession(sessionId: string): Promise<void> {
    const ended = [...this.live.values()].filter(
      (task) => task.spec.session === sessionId && task.spec.owner === undefined,
    );
    for (const task of ended) {
      this.change(task, { status: 'cancelled', inputRequests: undefined });
      task.stop();
      task.expiry?.unsubscribe();
    }
    this.options.quota?.endSession(sessionId);
    await Promise.all(
      ended.map(async (task) => {
        await task.writes;
        await this.options.store.delete(task.taskId);
      }),
    );
  }

  /** Takes a task out of those running here, giving its quota slot back once. */
  private leave(task: LiveTask): void {
    if (this.live.get(task.taskId) === task) this.live.delete(task.taskId);
    if (!task.slot) return;
    task.slot = false;
    this.options.quota?.give(task.spec.owner, task.spec.session);
  }

  /** Ends every task this process runs (the server closes): each fails with -32603 and its work is unsubscribed. */
  stopAll(reason: string): void {
    for (const task of [...this.live.values()]) {
      this.change(task, { status: 'failed', error: JsonRpcError.internalError(`Internal error: ${reason}`).toJSON() });
      task.stop();
    }
  }

  /** The JSON-RPC error a failed task reports: a `JsonRpcError` as it is, anything else as -32603 (details in our log). */
  toErrorObject(error: unknown, taskId: string): { code: number; message: string; data?: unknown } {
    if (error instanceof JsonRpcError) return error.toJSON();
    this.options.logger.error({ err: error, taskId }, 'task failed');
    return JsonRpcError.internalError().toJSON();
  }
}
