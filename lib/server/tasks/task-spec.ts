/**
 * What the task runner is given and gives back: the spec of a task to create (who it belongs to,
 * where what its work emits goes) and the handle of a task it runs.
 */
import type { Observable, Observer, Subscription } from '../../rx/rxjs';
import type { LogUpdate, PartialResult, ProgressUpdate } from '../../connection/handler-events';
import type { TaskRecord } from './task-store';

/** What a task to create is. */
export interface TaskSpec {
  /** Which design the task follows: the 2025-11-25 core tasks or the 2026-07-28 extension. */
  readonly design: 'core' | 'extension';
  /** The method the task stands for (`tools/call`). */
  readonly method: string;
  /** The time to live the creator asked for (2025-11-25 `task.ttl`). */
  readonly requestedTtlMs?: number;
  /** The principal the task belongs to, when the endpoint verified one. */
  readonly owner?: string;
  /** The session the task was created in, when the endpoint tells clients apart by session. */
  readonly session?: string;
  /** Told of every change of the task's record (a status notification in a session). */
  readonly onChange?: (record: TaskRecord) => void;
  /** Log messages the work emits once it runs as a task. */
  readonly onLog?: (event: LogUpdate) => void;
  /** Progress the work reports once it runs as a task (2025-11-25: the request's progress token stays valid). */
  readonly onProgress?: (event: ProgressUpdate) => void;
  /** The work's partial results, numbered from `firstSeq`, when asked for (SEP-2998); else each is progress. */
  readonly onPartial?: (piece: PartialResult, seq: number, taskId: string) => void;
  /**
   * The `seq` of the first piece the work emits as a task: those it emitted before it became one
   * (a tool that signals its start) went out with the request, numbered from 0. Default 0.
   */
  readonly firstSeq?: number;
}

/**
 * A task in this process: an Observer of its work's emissions, with the ways its work reaches its
 * client (input requests parked in the record, or requests sent while the task waits on them).
 */
export interface TaskHandle extends Observer<unknown> {
  /** The task's id. */
  readonly taskId: string;
  /** The record as the task was created. */
  readonly created: TaskRecord;
  /** Aborted when the task is cancelled. */
  readonly signal: AbortSignal;
  /** Keeps the subscription to the task's work, so that cancelling the task unsubscribes it. */
  hold(subscription: Subscription): void;
  /** Sets the status message (from the work's progress). */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Extension design: parks an input request in the task (status `input_required`) until
   * `tasks/update` answers its key. Cold; unsubscribing withdraws the request.
   */
  ask<T>(method: string, params: Record<string, unknown> | undefined, inputKey?: string): Observable<T>;
  /** Core design: the task is `input_required` while `request` (a request to the client) is in flight. */
  waitingOn<T>(request: Observable<T>): Observable<T>;
}
