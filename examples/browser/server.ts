/**
 * The server the browser page (index.html) talks to. A browser lets a page read answers from
 * another origin only when the server allows that origin: `cors` lists it.
 *
 *   PAGE_ORIGIN=http://127.0.0.1:5173 PORT=3000 node dist/examples/browser/server.js
 *
 * PAGE_ORIGIN is where the page is served from (default http://127.0.0.1:5173); PORT defaults to 0,
 * a free port. It prints its URL; pass it to the page as ?server=<URL>.
 */
import { endWith, interval, map, take } from 'rxjs';
import { createServer, progress, startStreamableHttpServer, textResult } from 'rxmcp';

const pageOrigin = process.env.PAGE_ORIGIN ?? 'http://127.0.0.1:5173';

const server = createServer({ name: 'browser-example', version: '1.0.0' });
server.tool({
  name: 'countdown',
  description: 'Counts down from 3, one step every 100 ms.',
  handler: () =>
    interval(100).pipe(
      take(3),
      map((i) => progress(i + 1, 3, `${2 - i} to go`)),
      endWith(textResult('lift-off')),
    ),
});

void startStreamableHttpServer({
  server,
  host: '127.0.0.1',
  port: Number(process.env.PORT ?? 0),
  // Preflights from this origin are answered, and its requests get Access-Control-Allow-Origin.
  cors: { origins: [pageOrigin] },
}).then((running) => {
  process.stdout.write(`browser-example at ${running.url.href} (allows ${pageOrigin})\n`);
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
});
