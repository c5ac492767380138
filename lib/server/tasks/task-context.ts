/**
 * The request context a tool handler sees when its call runs as a task. Until the call becomes a
 * task it is the request's own; from then on the handler's progress goes to the task's status
 * message, its requests to the client wait with the task in `input_required`, and cancelling the
 * task aborts its signal.
 */
import { Observable } from '../../rx/rxjs';
import type { NestedRequestOptions, RequestContext } from '../../connection/dispatcher';
import type { LogLevel } from '../../connection/handler-events';
import type { MessageParams } from '../../schema/request-meta';
import type { Revision } from '../../schema/revisions';
import type { InputRound } from '../input-round';
import type { InputAsker } from '../server-context';
import type { Session } from '../session';
import type { TaskHandle } from './task-spec';

/** The `_meta` key that ties a message to its task (2025-11-25: Tasks → Related Task Metadata). */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** A request's context that hands over to a task (see the module). */
export class TaskRequestContext implements RequestContext {
  private task: TaskHandle | undefined;
  private abort: AbortController | undefined;

  constructor(
    private readonly inner: RequestContext,
    private readonly session: Session | undefined,
  ) {}

  /** From now on the work runs as `task`. */
  escalate(task: TaskHandle): void {
    this.task = task;
    task.signal.addEventListener('abort', () => this.abort?.abort(task.signal.reason), { once: true });
  }

  get requestId(): RequestContext['requestId'] {
    return this.inner.requestId;
  }
  get method(): string {
    return this.inner.method;
  }
  get revision(): Revision {
    return this.inner.revision;
  }
  get progressToken(): string | number | undefined {
    return this.inner.progressToken;
  }
  get meta(): Record<string, unknown> | undefined {
    return this.inner.meta;
  }
  get peer(): RequestContext['peer'] {
    return this.inner.peer;
  }

  /** Aborted when the request is cancelled before it became a task, or when the task is cancelled. */
  get signal(): AbortSignal {
    if (this.abort === undefined) {
      const abort = (this.abort = new AbortController());
      if (this.task?.signal.aborted) abort.abort(this.task.signal.reason);
      else if (this.task === undefined) {
        const inner = this.inner.signal;
        inner.addEventListener('abort', () => {
          if (this.task === undefined) abort.abort(inner.reason);
        });
      }
    }
    return this.abort.signal;
  }

  progress(progress: number, total?: number, message?: string): void {
    if (this.task) this.task.progress(progress, total, message);
    else this.inner.progress(progress, total, message);
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    if (!this.task) this.inner.log(level, data, logger);
    // A task's log messages reach a session's client as any log message does (spec 2025-11-25);
    // a modern client has no channel for them until the listen stream carries task events.
    else this.session?.log(level, data, logger);
  }

  notify(method: string, params?: Record<string, unknown>): void {
    if (!this.task) this.inner.notify(method, params);
    else if (this.session?.connection.state === 'operating') this.session.connection.notify(method, params);
  }

  request(method: string, params?: MessageParams, options?: NestedRequestOptions): Observable<Record<string, unknown>> {
    const task = this.task;
    if (!task) return this.inner.request(method, params, options);
    const session = this.session;
    if (!session) {
      return new Observable((subscriber) =>
        subscriber.error(
          new Error(`Cannot send ${method}: a task of a modern request asks its client through tasks/update`),
        ),
      );
    }
    // 2025-11-25: a request a task depends on carries the task's id, and the task is input_required meanwhile.
    const meta = { ...params?._meta, [RELATED_TASK]: { taskId: task.taskId } };
    return task.waitingOn(
      session.connection.request(
        method,
        { ...params, _meta: meta },
        { timeoutMs: options?.timeoutMs, signal: options?.signal },
      ),
    );
  }
}

/**
 * Where a modern request's handler asks its client for input: the request's multi round-trip
 * round until the call becomes a task (when there is one), then the task (`tasks/update`).
 */
export class TaskAsker implements InputAsker {
  private task: TaskHandle | undefined;

  constructor(private readonly round: InputRound | undefined) {}

  escalate(task: TaskHandle): void {
    this.task = task;
  }

  ask<T>(method: string, params: Record<string, unknown> | undefined, inputKey?: string): Observable<T> {
    return new Observable<T>((subscriber) => {
      if (this.task) return this.task.ask<T>(method, params, inputKey).subscribe(subscriber);
      if (this.round) return this.round.ask<T>(method, params, inputKey).subscribe(subscriber);
      subscriber.error(new Error(`Cannot send ${method}: the call is not a task yet`));
      return undefined;
    });
  }
}
