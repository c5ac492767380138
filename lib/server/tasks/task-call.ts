/**
 * A `tools/call` that runs as a task: the tool's handler is not rewritten; its Observable (or
 * Promise, or value) is subscribed once and its emissions drive the task. The request is answered
 * with the task's handle as soon as the task is stored: at once, or, for a tool registered with
 * `taskStart: 'signalled'`, when its handler emits `startTask()`.
 */
import { defer, from, map, Observable } from '../../rx/rxjs';
import type { SchedulerLike, Subscription } from '../../rx/rxjs';
import type { HandlerOutput, HandlerResult, RequestContext } from '../../connection/dispatcher';
import { observeOutput } from '../../connection/dispatcher';
import { PartialResult, TaskStart } from '../../connection/handler-events';
import type { CallToolRequestParams } from '../../schema/tools';
import { principalOf } from '../../transport/transport';
import { InputRound } from '../input-round';
import type { RequestStateSealer } from '../request-state';
import { SessionContext, ModernContext } from '../server-context';
import type { ServerContext } from '../server-context';
import type { Session } from '../session';
import type { ToolRegistry } from '../tool-registry';
import { TaskAsker, TaskRequestContext } from './task-context';
import type { TaskRunner } from './task-runner';
import type { TaskHandle, TaskSpec } from './task-spec';
import { toCoreTask, toExtensionCreateResult } from './task-wire';
import type { TaskRecord } from './task-store';

/** What a task-running call needs. */
export interface TaskCallDeps {
  readonly tools: ToolRegistry;
  readonly runner: TaskRunner;
  readonly sealer: RequestStateSealer;
  readonly scheduler: SchedulerLike | undefined;
}

/** How one call runs as a task. */
export interface TaskCallPlan {
  readonly design: 'core' | 'extension';
  readonly start: 'immediately' | 'signalled';
  readonly session: Session | undefined;
  readonly spec: TaskSpec;
}

/** The handle a design answers a task-creating request with. */
function createdResult(record: TaskRecord, design: 'core' | 'extension'): HandlerResult {
  return design === 'core' ? { task: toCoreTask(record) } : toExtensionCreateResult(record);
}

/** Runs one `tools/call` as a task (see the module). */
export function runToolTask(
  params: CallToolRequestParams,
  context: RequestContext,
  plan: TaskCallPlan,
  deps: TaskCallDeps,
): HandlerOutput<HandlerResult> {
  const taskContext = new TaskRequestContext(context, plan.session);
  // Before the call becomes a task, a modern handler asks its client in multi round-trip rounds.
  const round =
    plan.design === 'extension' && plan.start === 'signalled'
      ? new InputRound(context.method, params, {
          sealer: deps.sealer,
          scheduler: deps.scheduler,
          principal: principalOf(context.peer?.auth),
        })
      : undefined;
  const asker = new TaskAsker(round);
  const serverContext: ServerContext =
    plan.design === 'extension'
      ? new ModernContext(taskContext, asker)
      : new SessionContext(taskContext, plan.session!);
  const escalate = (task: TaskHandle) => {
    taskContext.escalate(task);
    asker.escalate(task);
  };
  const work = defer(() => observeOutput(deps.tools.call(params, serverContext)));
  if (plan.start === 'immediately') {
    return from(deps.runner.create(plan.spec)).pipe(
      map((task) => {
        escalate(task);
        task.hold(work.subscribe(task));
        return createdResult(task.created, plan.design);
      }),
    );
  }
  return signalledTask(round ? round.run(work) : work, plan, deps, escalate);
}

/**
 * A call whose tool signals when it becomes a task (`startTask()`): the request carries what the
 * work emits until then; the task is created at the signal, answers the request with its handle,
 * and takes the work's emissions from there (those emitted while it was being stored included).
 */
function signalledTask(
  source: Observable<unknown>,
  plan: TaskCallPlan,
  deps: TaskCallDeps,
  escalate: (task: TaskHandle) => void,
): Observable<HandlerResult> {
  return new Observable<unknown>((subscriber) => {
    let task: TaskHandle | undefined;
    /** What the work emitted while its task was being stored, replayed to the task. */
    let queued: ((task: TaskHandle) => void)[] | undefined;
    /** Pieces of partial results that went with the request: the task's own are numbered after them. */
    let before = 0;
    const toTask = (deliver: (task: TaskHandle) => void) => {
      if (task) deliver(task);
      else queued!.push(deliver);
    };
    const begin = () => {
      queued = [];
      deps.runner.create(before === 0 ? plan.spec : { ...plan.spec, firstSeq: before }).then(
        (created) => {
          escalate(created);
          task = created;
          for (const deliver of queued!) deliver(created);
          // The store answers asynchronously, so the subscription below exists by now.
          created.hold(subscription);
          subscriber.next(createdResult(created.created, plan.design));
          subscriber.complete();
        },
        (error: unknown) => {
          subscription.unsubscribe();
          subscriber.error(error);
        },
      );
    };
    const subscription: Subscription = source.subscribe({
      next: (value) => {
        if (queued !== undefined) toTask((t) => t.next(value));
        else if (value instanceof TaskStart) begin();
        else {
          if (value instanceof PartialResult) before += 1;
          subscriber.next(value);
        }
      },
      error: (error: unknown) => (queued !== undefined ? toTask((t) => t.error(error)) : subscriber.error(error)),
      complete: () => (queued !== undefined ? toTask((t) => t.complete()) : subscriber.complete()),
    });
    // Unsubscribing the request cancels the work only while it is not a task yet.
    return () => {
      if (queued === undefined) subscription.unsubscribe();
    };
  }) as Observable<HandlerResult>;
}
