/**
 * Partial tool results on the server (SEP-2998, as drafted in 2026; experimental): a tool handler's
 * Observable emits `partialResult(...)` values before its result, and `partialResults()`, an
 * extension, sends each as `notifications/tools/partial_result` to a client that asked for them.
 * A client that did not ask (or a server without the extension) gets each as a progress message
 * instead, with no change to the handler. The final result stays the whole answer. A call that
 * runs as a task (2025-11-25) sends its pieces in its session, each with the task's id; one that
 * runs as a task of the 2026-07-28 tasks extension keeps them (bounded, see `TasksOptions`) for
 * the `tasks/get` answers of callers that declared partial results (lib/server/tasks/kept-partials.ts).
 */
import { Observable } from '../rx/rxjs';
import { PartialResult } from '../connection/handler-events';
import type { MiddlewareEvent } from '../connection/middleware';
import {
  PARTIAL_RESULT_METHOD,
  PARTIAL_RESULTS_EXTENSION,
  partialResultParams,
  partialResultToken,
} from '../connection/partial-results';
import type { ServerExtension } from './extensions';
import type * as KeptPartials from './tasks/kept-partials';
import type * as TaskHandlers from './tasks/task-handlers';
import type { ServerContext } from './server-context';

/** The token a `tools/call` asked for partial results with, when its client declared them. */
export function partialResultTokenOf(context: ServerContext): string | number | undefined {
  return partialResultToken(context.meta, context.clientCapabilities);
}

/**
 * The partial results extension: declared in the server's capabilities, and around every
 * `tools/call` whose client asked, each `partialResult` the handler emits goes out as
 * `notifications/tools/partial_result` with the call's token and a `seq` from 0, routed with the
 * call (on its SSE stream over HTTP). What a slow client does not read is bounded as any message
 * is by the transport (Streamable HTTP's `maxBufferedBytes`).
 *
 * @example
 * const server = createServer({ name: 'writer', version: '1.0.0', extensions: [partialResults()] });
 */
export function partialResults(): ServerExtension {
  // Tasks send or keep pieces only with this extension: its code comes with it (and loads the
  // task handlers it installs into, as a server with tasks does).
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { TASK_PARTIALS } = require('./tasks/kept-partials') as typeof KeptPartials;
  (require('./tasks/task-handlers') as typeof TaskHandlers).useTaskPartials(TASK_PARTIALS);
  /* eslint-enable @typescript-eslint/no-require-imports */
  return {
    id: PARTIAL_RESULTS_EXTENSION,
    middleware: (request, context, next) => {
      if (request.method !== 'tools/call') return next();
      const token = partialResultTokenOf(context);
      if (token === undefined) return next();
      return new Observable<MiddlewareEvent>((subscriber) => {
        let seq = 0;
        return next().subscribe({
          next: (event) => {
            if (!(event instanceof PartialResult)) {
              subscriber.next(event);
              return;
            }
            context.notify(PARTIAL_RESULT_METHOD, partialResultParams(token, seq++, event));
          },
          error: (error: unknown) => subscriber.error(error),
          complete: () => subscriber.complete(),
        });
      });
    },
  };
}
