/**
 * The example server's tools that run as tasks (the 2025-11-25 core tasks and the 2026-07-28 tasks
 * extension), with the names and behaviour the conformance suite's `tasks-*` scenarios expect. None
 * of them knows about tasks: each is an ordinary handler (most of them Observables) whose
 * emissions become the task's status and result, and whose unsubscription is the task's cancel.
 */
import { concat, defer, forkJoin, interval, map, of, switchMap, take, timer } from 'rxjs';
import { z } from 'zod';
import { JsonRpcError, progress, startTask } from '../../lib/index';
import type { McpServer, ServerContext, ToolResult } from '../../lib/index';

const text = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }] });

const CONFIRM = {
  type: 'object' as const,
  properties: { confirm: { type: 'boolean' as const }, name: { type: 'string' as const } },
};

/** Asks the user one question (an input request of a task, or of a multi round-trip request). */
const ask = (context: ServerContext, message: string, inputKey?: string) =>
  context.elicit({ message, requestedSchema: CONFIRM }, inputKey === undefined ? undefined : { inputKey });

/** Registers the task tools on `server` (created with `tasks`). */
export function taskTools(server: McpServer): void {
  server.tool({
    name: 'greet',
    description: 'Greets someone at once; never runs as a task.',
    inputSchema: z.object({ name: z.string() }),
    handler: ({ name }) => text(`Hello, ${name}!`),
  });
  server.tool({
    name: 'slow_compute',
    description: 'Works for the given number of seconds, reporting progress each second, then answers.',
    inputSchema: z.object({ seconds: z.number().min(0).max(3600), label: z.string().optional() }),
    execution: { taskSupport: 'optional' },
    handler: ({ seconds, label }) => {
      const done = text(`Computed ${label ?? 'result'} in ${seconds} s`);
      if (seconds === 0) return done;
      // Unsubscribing (a cancelled task) stops the interval: nothing keeps running.
      return concat(
        interval(1000).pipe(
          take(Math.ceil(seconds)),
          map((i) => progress(i + 1, Math.ceil(seconds), `second ${i + 1} of ${Math.ceil(seconds)}`)),
        ),
        of(done),
      );
    },
  });
  server.tool({
    name: 'failing_job',
    description: 'Runs only as a task; after a second it reports a tool error.',
    execution: { taskSupport: 'required' },
    handler: () =>
      timer(1000).pipe(map(() => ({ ...text('The job failed: the input data was rejected'), isError: true }))),
  });
  server.tool({
    name: 'protocol_error_job',
    description: 'Runs as a task that ends in a protocol error (not a tool error).',
    execution: { taskSupport: 'optional' },
    handler: () =>
      timer(200).pipe(
        map((): ToolResult => {
          throw new JsonRpcError(-32603, 'Internal error: the job lost its worker');
        }),
      ),
  });
  server.tool({
    name: 'confirm_delete',
    description: 'Asks the user to confirm, then (pretends to) delete the file.',
    inputSchema: z.object({ filename: z.string() }),
    execution: { taskSupport: 'optional' },
    handler: ({ filename }, context) =>
      ask(context, `Delete ${filename}?`).pipe(
        map((answer) =>
          answer.action === 'accept' && answer.content?.confirm === true
            ? text(`Deleted ${filename}`)
            : text(`Kept ${filename}`),
        ),
      ),
  });
  server.tool({
    name: 'multi_input',
    description: 'Asks two questions at once and answers when both are answered.',
    execution: { taskSupport: 'optional' },
    handler: (_args, context) =>
      forkJoin([ask(context, 'First question'), ask(context, 'Second question')]).pipe(
        map(([first, second]) => text(`Answers: ${JSON.stringify(first.content)}, ${JSON.stringify(second.content)}`)),
      ),
  });
  server.tool({
    name: 'test_tool_with_task',
    description: "Asks the user's name within the request, then finishes the work as a task.",
    execution: { taskSupport: 'required' },
    taskStart: 'signalled',
    handler: (_args, context) =>
      context
        .elicit(
          {
            message: 'What is your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          },
          { inputKey: 'user_name' },
        )
        .pipe(
          switchMap((answer) => {
            const name = String(answer.content?.name ?? 'stranger');
            // From here on the call is a task: the client gets its handle and polls for this result.
            return concat(
              of(startTask()),
              defer(() => timer(500).pipe(map(() => text(`Hello, ${name}! The work is done.`)))),
            );
          }),
        ),
  });
}
