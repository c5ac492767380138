/** The rxmcp server the benchmarks call: a trivial tool and a 1 MB tool. Served over stdio when run. */
import { z } from 'zod';
import { createServer, createStdioServerTransport } from '../../lib/index';
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
  const session = createBenchServer().connect(createStdioServerTransport());
  session.closed$.subscribe(() => process.exit(0));
}
