/**
 * A tool written as an Observable: it streams progress and log messages while it works, and stops
 * when the client cancels the call. Served over Streamable HTTP.
 *
 *   PORT=3000 node dist/examples/streaming-tool.js   # prints its URL; PORT unset or 0: a free port
 *
 * Try it with examples/client-with-progress.ts:
 *   node dist/examples/client-with-progress.js http://127.0.0.1:3000/mcp count '{"to":5}'
 */
import { endWith, finalize, interval, mergeMap, of, take } from 'rxjs';
import { z } from 'zod';
import { createServer, log, progress, startStreamableHttpServer, textResult } from 'rxmcp';

const server = createServer({ name: 'streaming-example', version: '1.0.0' });

server.tool({
  name: 'count',
  description: 'Counts to `to`, one step every `stepMs` milliseconds, reporting each step.',
  inputSchema: z.object({ to: z.number().int().min(1).max(1000), stepMs: z.number().int().min(1).default(100) }),
  // Each value the Observable emits before the result becomes a notification to the caller:
  // progress() a notifications/progress, log() a notifications/message. The last value is the result.
  handler: ({ to, stepMs }) => {
    let done = 0;
    return interval(stepMs).pipe(
      take(to),
      mergeMap((i) => {
        done = i + 1;
        const step = progress(done, to, `step ${done} of ${to}`);
        // A log message every fifth step, at level info (a client sees it at its level or below).
        return done % 5 === 0 ? of(step, log('info', { reached: done })) : of(step);
      }),
      endWith(textResult(`counted to ${to}`)),
      // Cancelling the call (notifications/cancelled, or the client closing) unsubscribes this
      // Observable: the interval stops and no result is sent. finalize runs in either case.
      finalize(() => {
        if (done < to) process.stderr.write(`count: cancelled after ${done} of ${to} steps\n`);
      }),
    );
  },
});

void startStreamableHttpServer({ server, host: '127.0.0.1', port: Number(process.env.PORT ?? 0) }).then((running) => {
  // The only line on stdout: the URL a client connects to.
  process.stdout.write(`streaming-example at ${running.url.href}\n`);
  // Ctrl-C or SIGTERM: close the sessions and stop listening.
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
});
