/**
 * The example server: every feature of rxmcp in one place. `node dist/examples/everything-server.js`
 * speaks MCP on stdio; logs go to stderr, stdout carries protocol messages only.
 */
import pino from 'pino';
import { interval, map, take, endWith } from 'rxjs';
import { z } from 'zod';
import { createServer, createStdioServerTransport, progress } from '../lib/index';

const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));

/** Builds the example server definition (shared by every transport it is served on). */
export function createEverythingServer() {
  const server = createServer({
    name: 'rxmcp-everything-server',
    version: '0.1.0',
    instructions: 'A demonstration server: simple tools, streamed progress and cancellation.',
    logger,
  });

  server.tool({
    name: 'echo',
    description: 'Echoes the text it is given.',
    inputSchema: z.object({ text: z.string().describe('The text to echo back') }),
    handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
  });

  server.tool({
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    handler: ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  });

  server.tool({
    name: 'countdown',
    description: 'Counts down from `from`, one step every `intervalMs`, streaming each step as progress; cancel to stop it.',
    inputSchema: z.object({ from: z.number().int().min(1).max(1000).default(5), intervalMs: z.number().int().min(1).max(10_000).default(100) }),
    handler: ({ from, intervalMs }) =>
      interval(intervalMs).pipe(
        take(from),
        map((i) => progress(i + 1, from, `${from - i - 1} to go`)),
        endWith({ content: [{ type: 'text', text: `Counted down from ${from}` }] }),
      ),
  });

  return server;
}

if (require.main === module) {
  const server = createEverythingServer();
  const session = server.connect(createStdioServerTransport({ logger }));
  session.closed$.subscribe(({ reason }) => {
    logger.info({ reason }, 'session ended');
    process.exit(0);
  });
}
