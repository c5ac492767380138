/**
 * The rxmcp server the benchmarks call: a trivial tool and a 1 MB tool. Served over stdio when run,
 * or over Streamable HTTP on a free loopback port with `--http=stateful|stateless|2026` (its URL is
 * printed on the first line; it ends when its stdin closes):
 *
 * - `stateful` and `2026` (and a bare `--http`): one endpoint made with `{ server }`, as a user
 *   serves one server definition, serving sessions of the handshake revisions and the stateless
 *   2026-07-28 requests alike;
 * - `stateless`: the handshake revisions without sessions (`sessionless: true`), each POST handed to
 *   the server definition as a session of its own.
 */
import { z } from 'zod';
// The entries a user's server imports (rxmcp/server, rxmcp/stdio; rxmcp/http only when serving
// HTTP), not the root, which loads every role: a cold start then loads what a user's would.
import { createServer } from '../../lib/entries/server';
import type { McpServer } from '../../lib/entries/server';
import { createStdioServerTransport } from '../../lib/entries/stdio';
import type * as HttpEntry from '../../lib/entries/http';
import type { RunningStreamableHttpServer } from '../../lib/entries/http';
import { LARGE_TEXT } from '../workload';
import { endWithStdin, keepConnections } from './process';

export function createBenchServer(): McpServer {
  const server = createServer({ name: 'bench-rxmcp', version: '1.0.0' });
  server.tool({
    name: 'echo',
    description: 'Echoes its text.',
    inputSchema: z.object({ text: z.string() }),
    handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
  });
  server.tool({
    name: 'large',
    description: 'Returns 1 MB of text.',
    handler: () => ({ content: [{ type: 'text', text: LARGE_TEXT }] }),
  });
  return server;
}

/** The HTTP modes of the script, one per HTTP call transport. */
export type HttpMode = 'stateful' | 'stateless' | '2026';

/** Serves the bench server over Streamable HTTP on a free loopback port, in `mode`. */
export async function serveBenchHttp(mode: HttpMode): Promise<RunningStreamableHttpServer> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startStreamableHttpServer } = require('../../lib/entries/http') as typeof HttpEntry;
  const server = createBenchServer();
  const running =
    mode === 'stateless'
      ? await startStreamableHttpServer({ port: 0, sessionless: true, onSession: (t) => void server.connect(t) })
      : await startStreamableHttpServer({ port: 0, server });
  keepConnections(running.server);
  return running;
}

if (require.main === module) {
  const http = process.argv.find((a) => a === '--http' || a.startsWith('--http='));
  if (http) {
    const mode = (http.slice('--http='.length) || 'stateful') as HttpMode;
    if (!['stateful', 'stateless', '2026'].includes(mode)) throw new Error(`unknown mode ${http}`);
    void serveBenchHttp(mode).then((running) => {
      process.stdout.write(`${running.url.href}\n`);
      endWithStdin();
    });
  } else {
    const session = createBenchServer().connect(createStdioServerTransport());
    session.closed$.subscribe(() => process.exit(0));
  }
}
