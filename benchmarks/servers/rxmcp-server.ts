/**
 * The rxmcp server the benchmarks call: a trivial tool and a 1 MB tool. Served over stdio when
 * run, or over Streamable HTTP on a free loopback port with `--http` (its URL is printed).
 */
import { z } from 'zod';
import { createServer, createStdioServerTransport, startStreamableHttpServer } from '../../lib/index';
import type { McpServer } from '../../lib/index';
import { LARGE_TEXT } from '../workload';

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

if (require.main === module) {
  if (process.argv.includes('--http')) {
    void startStreamableHttpServer({ port: 0, host: '127.0.0.1', server: createBenchServer() }).then((running) => {
      process.stdout.write(`${String(running.url)}\n`);
      // The parent ends the server by closing its stdin.
      process.stdin.on('end', () => process.exit(0)).resume();
    });
  } else {
    const session = createBenchServer().connect(createStdioServerTransport());
    session.closed$.subscribe(() => process.exit(0));
  }
}
