/**
 * The client as the receiver of tasks (2025-11-25, Basic → Utilities → Tasks): a server may send
 * `sampling/createMessage` or `elicitation/create` task-augmented (with `task`), when the client
 * declares `tasks.requests.*`. The client then answers at once with the task, runs its handler in
 * the background, and answers `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` about
 * it. Each task lives for its time to live (the server's asked `ttl`, at most `maxTtlMs`), then is
 * forgotten; all stop when the connection closes.
 */
import type { Logger } from 'pino';
import { asyncScheduler, filter, last, Observable, ReplaySubject, take, takeUntil, timer } from '../../rx/rxjs';
import type { SchedulerLike, Subscription } from '../../rx/rxjs';
import { observeOutput } from '../../connection/dispatcher';
import type { RequestContext, RequestHandler } from '../../connection/dispatcher';
import { isHandlerEvent } from '../../connection/handler-events';
import { JsonRpcError } from '../../jsonrpc/errors';
import { TERMINAL_STATUSES } from './task-wire';
import type { TaskStatus } from '../../schema/tasks';

/** The requests a server may augment with a task, with the capability that says so. */
const AUGMENTABLE: Readonly<Record<string, readonly [string, string]>> = {
  'sampling/createMessage': ['sampling', 'createMessage'],
  'elicitation/create': ['elicitation', 'create'],
};

/** How long a task is kept when the server asks for no `ttl`, and the most it may ask for. */
export const DEFAULT_RECEIVED_TASK_TTL_MS = 10 * 60 * 1000;
export const MAX_RECEIVED_TASK_TTL_MS = 60 * 60 * 1000;
/** The poll interval the client suggests. */
const POLL_INTERVAL_MS = 1000;

interface HeldTask {
  readonly taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  readonly createdAt: string;
  lastUpdatedAt: string;
  readonly ttl: number;
  readonly abort: AbortController;
  /** Emits the outcome once the task is terminal. */
  readonly outcome$: ReplaySubject<{ result: Record<string, unknown> } | { error: JsonRpcError }>;
  work?: Subscription;
  expiry?: Subscription;
}

/** Options of the receiver. */
export interface TaskReceiverOptions {
  readonly scheduler?: SchedulerLike;
  readonly closed$: Observable<unknown>;
  readonly log: Logger;
}

/** The `tasks` capability a client declares for the handlers it has (2025-11-25). */
export function receiverCapabilities(handlers: Readonly<Record<string, RequestHandler>>): Record<string, unknown> {
  const requests: Record<string, Record<string, unknown>> = {};
  for (const [method, [area, name]] of Object.entries(AUGMENTABLE)) {
    if (Object.hasOwn(handlers, method)) requests[area] = { ...requests[area], [name]: {} };
  }
  return Object.keys(requests).length === 0 ? {} : { tasks: { list: {}, cancel: {}, requests } };
}

const notFound = (taskId: unknown) =>
  JsonRpcError.invalidParams(`Failed to retrieve task: Task ${JSON.stringify(taskId)} not found`);

/** The tasks of one connection, and the handlers that serve them. */
class TaskReceiver {
  private readonly tasks = new Map<string, HeldTask>();
  private readonly scheduler: SchedulerLike;

  constructor(private readonly options: TaskReceiverOptions) {
    this.scheduler = options.scheduler ?? asyncScheduler;
    options.closed$.pipe(take(1)).subscribe(() => {
      for (const task of this.tasks.values()) this.drop(task);
    });
  }

  /** `handler`, taking task-augmented requests as tasks. */
  augment(handler: RequestHandler): RequestHandler {
    return (params, context) => {
      if (params.task === undefined) return handler(params, context);
      const { task: metadata, ...plain } = params;
      const held = this.create((metadata as { ttl?: unknown } | null)?.ttl);
      // Tasks begin `working` (Task Status Lifecycle), even when the handler answers at once.
      const created = { task: wireOf(held) };
      held.work = observeOutput(handler(plain, backgroundContext(context, held.abort.signal)))
        .pipe(
          filter((value) => !isHandlerEvent(value)),
          last(undefined, {}),
        )
        .subscribe({
          next: (result) => this.settle(held, 'completed', { result: result as Record<string, unknown> }),
          error: (error: unknown) => {
            if (!(error instanceof JsonRpcError)) this.options.log.error({ err: error }, 'task handler failed');
            const wire = error instanceof JsonRpcError ? error : new JsonRpcError(-32603, 'Internal error');
            this.settle(held, 'failed', { error: wire });
          },
        });
      return created;
    };
  }

  readonly handlers: Readonly<Record<string, RequestHandler>> = {
    'tasks/get': (params) => wireOf(this.held(params.taskId)),
    'tasks/result': (params) => {
      const held = this.held(params.taskId);
      return new Observable<Record<string, unknown>>((subscriber) =>
        held.outcome$.pipe(take(1)).subscribe((outcome) => {
          if ('error' in outcome) subscriber.error(outcome.error);
          else {
            const meta = {
              ...(outcome.result._meta as object),
              'io.modelcontextprotocol/related-task': { taskId: held.taskId },
            };
            subscriber.next({ ...outcome.result, _meta: meta });
            subscriber.complete();
          }
        }),
      );
    },
    'tasks/list': (params) => {
      if (params.cursor !== undefined)
        throw JsonRpcError.invalidParams(`Unknown cursor ${JSON.stringify(params.cursor)}`);
      return { tasks: [...this.tasks.values()].map(wireOf) };
    },
    'tasks/cancel': (params) => {
      const held = this.held(params.taskId);
      if (TERMINAL_STATUSES.has(held.status)) {
        throw JsonRpcError.invalidParams(`Cannot cancel task: already in terminal status '${held.status}'`);
      }
      held.abort.abort(new Error('task cancelled'));
      held.work?.unsubscribe();
      this.settle(held, 'cancelled', { error: new JsonRpcError(-32000, `Task ${held.taskId} was cancelled`) });
      return wireOf(held);
    },
  };

  private held(taskId: unknown): HeldTask {
    const held = typeof taskId === 'string' ? this.tasks.get(taskId) : undefined;
    if (!held) throw notFound(taskId);
    return held;
  }

  private create(askedTtl: unknown): HeldTask {
    const asked = typeof askedTtl === 'number' && askedTtl > 0 ? askedTtl : DEFAULT_RECEIVED_TASK_TTL_MS;
    const now = new Date(this.scheduler.now()).toISOString();
    const held: HeldTask = {
      taskId: globalThis.crypto.randomUUID(),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttl: Math.min(asked, MAX_RECEIVED_TASK_TTL_MS),
      abort: new AbortController(),
      outcome$: new ReplaySubject(1),
    };
    held.expiry = timer(held.ttl, this.scheduler)
      .pipe(takeUntil(this.options.closed$))
      .subscribe(() => this.drop(held));
    this.tasks.set(held.taskId, held);
    return held;
  }

  private settle(
    held: HeldTask,
    status: TaskStatus,
    outcome: { result: Record<string, unknown> } | { error: JsonRpcError },
  ): void {
    if (TERMINAL_STATUSES.has(held.status)) return;
    held.status = status;
    held.lastUpdatedAt = new Date(this.scheduler.now()).toISOString();
    held.outcome$.next(outcome);
  }

  /** Forgets a task (its time to live ran out, or the connection closed), stopping its work. */
  private drop(held: HeldTask): void {
    this.tasks.delete(held.taskId);
    held.expiry?.unsubscribe();
    held.work?.unsubscribe();
    if (!held.abort.signal.aborted) held.abort.abort(new Error('task expired'));
  }
}

function wireOf(held: HeldTask): Record<string, unknown> {
  return {
    taskId: held.taskId,
    status: held.status,
    ...(held.statusMessage === undefined ? {} : { statusMessage: held.statusMessage }),
    createdAt: held.createdAt,
    lastUpdatedAt: held.lastUpdatedAt,
    ttl: held.ttl,
    pollInterval: POLL_INTERVAL_MS,
  };
}

/** The context a handler runs in once its request was answered with a task: its own signal, no progress. */
function backgroundContext(context: RequestContext, signal: AbortSignal): RequestContext {
  return {
    requestId: context.requestId,
    method: context.method,
    revision: context.revision,
    meta: context.meta,
    signal,
    progress: () => undefined,
    log: (level, data, logger) => context.log(level, data, logger),
    notify: (method, params) => context.notify(method, params),
    request: context.request.bind(context),
  };
}

/**
 * The handlers of a client that receives tasks: its sampling and elicitation handlers, taking
 * task-augmented requests as tasks, and the `tasks/*` handlers. Served on a handshake connection.
 */
export function taskReceivingHandlers(
  handlers: Readonly<Record<string, RequestHandler>>,
  options: TaskReceiverOptions,
): Record<string, RequestHandler> {
  const receiver = new TaskReceiver(options);
  const out: Record<string, RequestHandler> = { ...handlers, ...receiver.handlers };
  for (const method of Object.keys(AUGMENTABLE)) {
    const handler = handlers[method];
    if (handler) out[method] = receiver.augment(handler);
  }
  return out;
}
