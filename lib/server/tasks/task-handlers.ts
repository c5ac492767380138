/**
 * A server's handlers with tasks: `tools/call` may run as a task, and the `tasks/*` methods of both
 * designs are served. A request of a handshake revision (a session) follows the 2025-11-25 core
 * tasks; one of a modern revision follows the tasks extension, and only when its client declared
 * the extension: nothing of a task is sent to a client that did not ask for tasks.
 */
import { isRecord } from '../../base/objects';
import { EMPTY, filter, merge, Observable, take } from '../../rx/rxjs';
import type { HandlerOutput, HandlerResult, RequestContext, RequestHandler } from '../../connection/dispatcher';
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';
import { featuresOf } from '../../schema/revisions';
import { TASKS_EXTENSION } from '../../schema/tasks';
import { principalOf } from '../../transport/transport';
import { isHandlerOwner } from '../handler-parts';
import { sessionOf } from '../request-handlers';
import type { Session } from '../session';
import { runToolTask } from './task-call';
import type { TaskCallDeps } from './task-call';
import type { TaskRunner } from './task-runner';
import type { TaskSpec } from './task-spec';
import { isTerminalStatus } from './task-store';
import type { TaskFilter, TaskRecord } from './task-store';
import { corePayload, toCoreTask, toDetailedTask } from './task-wire';

/** What the task handlers need besides the task-running call's needs. */
export interface TaskHandlerDeps extends TaskCallDeps {
  /** Tasks per page of `tasks/list`. */
  readonly pageSize: number;
  /** What an extension task keeps of its partial results for `tasks/get` (unset: the defaults). */
  readonly partials: KeptPartialsLimits;
}

/** The bounds of what an extension task keeps of its partial results (`TasksOptions`); unset: the defaults. */
export interface KeptPartialsLimits {
  readonly maxPieces?: number | undefined;
  readonly maxBytes?: number | undefined;
}

/**
 * What tasks do with partial results (SEP-2998): send them in a 2025-11-25 task's session, keep them
 * in a tasks-extension task for `tasks/get`. Installed by `partialResults()` (task-partials.ts):
 * without that extension a server sends and keeps none, and its bundle carries none of the code.
 */
export interface TaskPartials {
  /** Where a 2025-11-25 task's pieces go: its session, when the call asked for them. */
  inSession(context: RequestContext, session: Session | undefined): Pick<TaskSpec, 'onPartial'>;
  /** Where a tasks-extension task's pieces go: its record, within `limits`, when the call asked for them. */
  kept(
    context: RequestContext,
    serverCapabilities: Record<string, unknown>,
    runner: TaskRunner,
    limits: KeptPartialsLimits,
  ): Pick<TaskSpec, 'onPartial'>;
  /** A `tasks/get` answer with the pieces the task keeps, for a caller that declared partial results. */
  withKept(answer: HandlerResult, record: TaskRecord, context: RequestContext): HandlerResult;
}

let taskPartials: TaskPartials | undefined;

/** Installs what tasks do with partial results (`partialResults()` does, once it is used). */
export function useTaskPartials(partials: TaskPartials): void {
  taskPartials = partials;
}

/** The capabilities the server declares, as the handler's owner (a session or the modern endpoint's stand-in) says. */
function serverCapabilitiesOf(owner: unknown): Record<string, unknown> {
  return isHandlerOwner(owner) ? owner.handlerParts.capabilities() : {};
}

/** Whether a modern request's client declared the tasks extension. */
function declaresExtension(context: RequestContext): boolean {
  const extensions = context.peer?.clientCapabilities.extensions;
  return isRecord(extensions) && extensions[TASKS_EXTENSION] !== undefined;
}

/** The answers of a `tasks/update`, by key: an object, as the extension's schema checked on admission. */
function inputResponsesOf(params: Record<string, unknown>): Record<string, unknown> {
  const responses = params.inputResponses;
  if (isRecord(responses)) return responses;
  throw JsonRpcError.invalidParams('inputResponses must be an object of answers by key');
}

/** -32021 naming the tasks extension (SEP-2663: Required Capabilities). */
function missingExtension(what: string): JsonRpcError {
  return new JsonRpcError(
    ErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: extensions.${TASKS_EXTENSION} (${what})`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/** Who is asking, where the endpoint verified it: tasks are bound to their principal. */
function callerOf(context: RequestContext, session: Session | undefined): string | undefined {
  return principalOf(context.peer?.auth ?? session?.auth);
}

/**
 * The session a task is bound to when no principal is: undefined where each request is a session
 * of its own (Streamable HTTP without sessions), which tells no client apart.
 */
function sessionKeyOf(session: Session | undefined): string | undefined {
  return session === undefined || session.transport?.impliedInitialize !== undefined ? undefined : session.id;
}

/** Whether a caller may see a task: its own principal's, or with no principal, its own session's. */
function mayAccess(record: TaskRecord, principal: string | undefined, session: string | undefined): boolean {
  if (record.owner !== principal) return false;
  return principal !== undefined || record.session === undefined || record.session === session;
}

/** Sessions whose end the runner is told of (each once). */
const watched = new WeakSet<Session>();

/** Tells the runner when `session` ends, so the tasks only it could reach free their slots. */
function watchSession(runner: TaskHandlerDeps['runner'], session: Session, key: string): void {
  if (watched.has(session)) return;
  watched.add(session);
  session.closed$.subscribe(() => void runner.endSession(key));
}

/** -32602 for a task id we do not know; a long id is cut, so a huge one gets no huge answer (#13). */
const unknownTask = (taskId: string) =>
  JsonRpcError.invalidParams(`Unknown task: ${taskId.length > 100 ? `${taskId.slice(0, 100)}…` : taskId}`);

/** The tools/call handler: runs the call as a task when the design, the tool and the client agree. */
function toolsCall(
  original: RequestHandler,
  deps: TaskHandlerDeps,
): RequestHandler<'tools/call', unknown, HandlerResult> {
  return (params, context, owner) => {
    const name = params.name;
    const mode = deps.tools.taskMode(name);
    if (mode === undefined || (mode.support === 'forbidden' && params.task === undefined)) {
      return original(params, context, owner);
    }
    const session = sessionOf(context, owner);
    const sessionKey = sessionKeyOf(session);
    const base = { method: 'tools/call', owner: callerOf(context, session), session: sessionKey };
    if (session !== undefined && sessionKey !== undefined) watchSession(deps.runner, session, sessionKey);
    if (context.peer === undefined) {
      if (!featuresOf(context.revision).tasks) return original(params, context, owner);
      const task = params.task;
      // 2025-11-25: Tools → Tool-level negotiation.
      if (task !== undefined && mode.support === 'forbidden') {
        throw JsonRpcError.methodNotFound('tools/call', `tool ${name} does not run as a task`);
      }
      if (task === undefined && mode.support === 'required') {
        throw JsonRpcError.methodNotFound('tools/call', `tool ${name} runs only as a task: send params.task`);
      }
      if (task === undefined) return original(params, context, owner);
      const spec: TaskSpec = {
        ...base,
        design: 'core',
        requestedTtlMs: typeof task.ttl === 'number' ? task.ttl : undefined,
        onChange: (record) => {
          if (session?.operating) session.connection.notify('notifications/tasks/status', { ...toCoreTask(record) });
        },
        ...taskPartials?.inSession(context, session),
        // 2025-11-25: Tasks → Task Progress Notifications: the call's progress token stays valid.
        onProgress: ({ progress, total, message }) => {
          const token = context.progressToken;
          if (token === undefined || !session?.operating) return;
          session.connection.notify('notifications/progress', {
            progressToken: token,
            progress,
            ...(total === undefined ? {} : { total }),
            ...(message === undefined ? {} : { message }),
          });
        },
      };
      return runToolTask(params, context, { design: 'core', start: mode.start, session, spec }, deps);
    }
    // The extension: the server decides; a `task` param of a 2025-11-25 client is ignored.
    if (mode.support === 'forbidden') return original(params, context, owner);
    if (!declaresExtension(context)) {
      if (mode.support === 'required') throw missingExtension(`tool ${name} runs only as a task`);
      return original(params, context, owner);
    }
    const spec: TaskSpec = {
      ...base,
      design: 'extension',
      ...taskPartials?.kept(context, serverCapabilitiesOf(owner), deps.runner, deps.partials),
    };
    return runToolTask(params, context, { design: 'extension', start: mode.start, session, spec }, deps);
  };
}

/** A task the requester may see, or -32602 as for an unknown one. */
async function visibleTask(
  deps: TaskHandlerDeps,
  taskId: string,
  context: RequestContext,
  session: Session | undefined,
): Promise<TaskRecord> {
  const record = await deps.runner.get(taskId);
  const design = context.peer === undefined ? 'core' : 'extension';
  if (record === undefined || record.design !== design) throw unknownTask(taskId);
  // Another caller's task is answered as an unknown one: its existence is not disclosed.
  if (!mayAccess(record, callerOf(context, session), sessionKeyOf(session))) throw unknownTask(taskId);
  return record;
}

/** `tasks/result` (2025-11-25): the request's own answer, once the task is final. */
function taskResult(deps: TaskHandlerDeps, taskId: string, context: RequestContext, session: Session | undefined) {
  return new Observable<HandlerResult>((subscriber) => {
    const answer = (record: TaskRecord) => {
      try {
        subscriber.next(corePayload(record));
        subscriber.complete();
      } catch (error) {
        subscriber.error(error);
      }
    };
    // Listen before reading, so that a task that ends in between is not missed.
    // In this process, or (a store shared by processes) in another one.
    const waiting = merge(
      deps.runner.settled$.pipe(filter((record) => record.taskId === taskId)),
      deps.runner.store.settled$?.(taskId) ?? EMPTY,
    )
      .pipe(take(1))
      .subscribe(answer);
    visibleTask(deps, taskId, context, session).then(
      (record) => {
        if (isTerminalStatus(record.status)) answer(record);
      },
      (error: unknown) => subscriber.error(error),
    );
    return waiting;
  });
}

/** The handlers of `tasks/*`, by design. */
function taskMethods(deps: TaskHandlerDeps): Readonly<Record<string, RequestHandler>> {
  const { runner } = deps;
  /**
   * A session has the core methods only from 2025-11-25 (`tasks/update` never); a modern
   * request has the extension's only when its client declared the extension.
   */
  const gate = (context: RequestContext, method: string) => {
    if (context.peer === undefined) {
      if (method === 'tasks/update' || !featuresOf(context.revision).tasks) {
        throw JsonRpcError.methodNotFound(method);
      }
    } else if (!declaresExtension(context)) throw missingExtension(`${method} is part of the tasks extension`);
  };
  return {
    'tasks/get': async (params, context, owner): Promise<HandlerResult> => {
      gate(context, 'tasks/get');
      const record = await visibleTask(deps, taskIdOf(params), context, sessionOf(context, owner));
      if (context.peer === undefined) return { ...toCoreTask(record) };
      const answer = { ...toDetailedTask(record) };
      return taskPartials ? taskPartials.withKept(answer, record, context) : answer;
    },
    'tasks/cancel': async (params, context, owner): Promise<HandlerResult> => {
      gate(context, 'tasks/cancel');
      const taskId = taskIdOf(params);
      const record = await visibleTask(deps, taskId, context, sessionOf(context, owner));
      const cancelled = isTerminalStatus(record.status) ? undefined : await runner.cancel(taskId);
      // The extension acknowledges with an empty result, even for a final task (SEP-2663).
      if (context.peer !== undefined) return {};
      // 2025-11-25: cancelling a final task is invalid params.
      if (cancelled === undefined) throw JsonRpcError.invalidParams(`task ${taskId} is already ${record.status}`);
      return { ...toCoreTask(cancelled) };
    },
    'tasks/update': async (params, context, owner): Promise<HandlerResult> => {
      gate(context, 'tasks/update');
      const taskId = taskIdOf(params);
      const record = await visibleTask(deps, taskId, context, sessionOf(context, owner));
      if (!isTerminalStatus(record.status)) {
        await runner.answer(taskId, inputResponsesOf(params));
      }
      return {};
    },
    'tasks/result': (params, context, owner): HandlerOutput<HandlerResult> => {
      gate(context, 'tasks/result');
      return taskResult(deps, taskIdOf(params), context, sessionOf(context, owner));
    },
    'tasks/list': async (params, context, owner): Promise<HandlerResult> => {
      gate(context, 'tasks/list');
      const session = sessionOf(context, owner);
      const principal = callerOf(context, session);
      const scope: TaskFilter = principal !== undefined ? { owner: principal } : { session: sessionKeyOf(session) };
      const page = await runner.store.list(
        scope,
        typeof params.cursor === 'string' ? params.cursor : undefined,
        deps.pageSize,
      );
      const tasks = page.tasks.filter((record) => record.design === 'core').map(toCoreTask);
      return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
    },
  };
}

/** `handlers` with tasks (see the module). */
export function withTasks(
  handlers: Readonly<Record<string, RequestHandler>>,
  deps: TaskHandlerDeps,
): Record<string, RequestHandler> {
  const original = handlers['tools/call'];
  if (original === undefined) throw new TypeError('withTasks needs a tools/call handler');
  return { ...handlers, ...taskMethods(deps), 'tools/call': toolsCall(original, deps) };
}

/** The `taskId` of a tasks request (its schema required a string when the request was admitted). */
function taskIdOf(params: Record<string, unknown>): string {
  if (typeof params.taskId !== 'string') throw JsonRpcError.invalidParams('taskId must be a string');
  return params.taskId;
}
