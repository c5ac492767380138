/**
 * Partial results of a tool call that runs as a 2025-11-25 task (SEP-2998): the request that made
 * the task was answered at once, so the pieces come in the session, each with the call's token
 * and the task's id. They are read from the connection's notifications for as long as the task is
 * followed, and emitted as `partial` events among its other events.
 */
import { Observable } from '../../rx/rxjs';
import type { JsonRpcNotification } from '../../jsonrpc/message';
import { PARTIAL_RESULT_METHOD, PARTIAL_RESULTS_EXTENSION, readPartialResult } from '../../connection/partial-results';
import { declaredExtensions } from '../../schema/extensions';
import type { TaskEvent, TaskPartialEvent } from './task-follower';

let calls = 0;

/** A token for one task call's partial results, unique in this process. */
export function taskPartialsToken(): string {
  calls += 1;
  return `rxmcp-task-partials-${calls}`;
}

/** Whether the server declared partial results (the extension, under `extensions` or `experimental`). */
export function serverDeclaresPartials(serverCapabilities: Record<string, unknown>): boolean {
  return declaredExtensions(serverCapabilities)[PARTIAL_RESULTS_EXTENSION] !== undefined;
}

/** The task's events, with a `partial` event for each piece that carries `token`, until they end. */
export function withTaskPartials(
  notifications$: Observable<JsonRpcNotification>,
  token: string,
  events$: Observable<TaskEvent>,
): Observable<TaskEvent> {
  return new Observable<TaskEvent>((subscriber) => {
    const pieces = notifications$.subscribe((notification) => {
      if (notification.method !== PARTIAL_RESULT_METHOD) return;
      const read = readPartialResult(notification.params ?? {});
      if (read === undefined || read.token !== token || read.params.taskId === undefined) return;
      const { taskId, ...piece } = read.params;
      const event: TaskPartialEvent = { type: 'partial', taskId, ...piece };
      subscriber.next(event);
    });
    const events = events$.subscribe({
      next: (event) => subscriber.next(event),
      error: (error: unknown) => {
        pieces.unsubscribe();
        subscriber.error(error);
      },
      complete: () => {
        pieces.unsubscribe();
        subscriber.complete();
      },
    });
    return () => {
      pieces.unsubscribe();
      events.unsubscribe();
    };
  });
}
