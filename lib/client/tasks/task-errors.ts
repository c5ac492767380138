import { RxmcpError, RxmcpErrorCode } from '../../jsonrpc/errors';
/** The local failures of task calls (no JSON-RPC code: nothing here crossed the wire as an error). */

/** The task ended `cancelled`: there is no result to give. */
export class TaskCancelledError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.TaskCancelled;
  override readonly name: string = 'TaskCancelledError';

  constructor(
    readonly taskId: string,
    readonly statusMessage?: string,
  ) {
    super(`Task ${taskId} was cancelled${statusMessage ? `: ${statusMessage}` : ''}`);
  }
}

/**
 * A task call the client refused to send: the server does not take tasks for it (2025-11-25: no
 * `tasks.requests.tools.call` capability, or the tool's `execution.taskSupport` forbids it; tasks
 * extension: the server did not declare the extension), the client did not enable the tasks
 * extension, or the revision has no such task method (`tasks/list` after 2025-11-25).
 */
export class TaskNotSupportedError extends RxmcpError {
  readonly errorCode: RxmcpErrorCode = RxmcpErrorCode.TaskNotSupported;
  override readonly name: string = 'TaskNotSupportedError';

  constructor(
    readonly method: string,
    readonly reason: string,
  ) {
    super(`${method} as a task: ${reason}`);
  }
}
