/**
 * The types of the client's task API. Checked by `tsc` only (jest skips spec/types): every line
 * must compile, and every `@ts-expect-error` must stay an error.
 */
import type { Observable } from 'rxjs';
import type { McpClient } from '../../lib/client/client';
import { taskResult } from '../../lib/client/tasks/task-follower';
import type { TaskEvent } from '../../lib/client/tasks/task-follower';
import type { TaskInfo } from '../../lib/client/tasks/task-wire';
import type { CallToolResult } from '../../lib/schema/tools';

/** Compiles only when `A` and `B` are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(_: Equal<A, B>) => undefined;

export function typesOf(client: McpClient): void {
  const events = client.tasks.callTool('render', { scene: 1 }, { ttlMs: 60000, cancelOnUnsubscribe: true });
  same<typeof events, Observable<TaskEvent<CallToolResult>>>(true);
  same<TaskEvent['type'], 'status' | 'input_required' | 'partial' | 'result'>(true);
  // taskResult() keeps the tool's result.
  const _result = events.pipe(taskResult());
  same<typeof _result, Observable<CallToolResult>>(true);
  events.subscribe((event) => {
    // Narrowing on `type` gives each event its fields.
    if (event.type === 'status') same<typeof event.task, TaskInfo>(true);
    if (event.type === 'result') same<typeof event.result, CallToolResult>(true);
    if (event.type === 'partial') same<typeof event.seq, number>(true);
    // @ts-expect-error a status event has no result
    if (event.type === 'status') void event.result;
  });
  same<ReturnType<McpClient['tasks']['resume']>, Observable<TaskEvent<CallToolResult>>>(true);
  same<ReturnType<McpClient['tasks']['list']>, Observable<TaskInfo[]>>(true);
  same<TaskInfo['ttlMs'], number | null>(true);
  // @ts-expect-error the time to live of a task call is in milliseconds, named so
  client.tasks.callTool('render', {}, { ttl: 1000 });
}
