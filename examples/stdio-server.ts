/**
 * A stdio MCP server with one tool, one resource and one prompt.
 *
 *   node dist/examples/stdio-server.js
 *
 * A client (a desktop app, `rxmcp proxy`, examples/client-with-progress.ts) starts this program and
 * speaks MCP with it over stdin and stdout. So stdout carries protocol messages only: anything for a
 * human goes to stderr. The process exits when its stdin ends, that is when the client goes away.
 */
import { z } from 'zod';
import { createServer, createStdioServerTransport, textResult } from 'rxmcp';

// One server definition; its capabilities follow from what is registered on it.
const server = createServer({ name: 'stdio-example', version: '1.0.0' });

// A tool: the client sends arguments, checked against the zod schema before the handler runs.
server.tool({
  name: 'add',
  description: 'Adds two numbers.',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => textResult(String(a + b)),
});

// A resource: a document the client reads by its URI.
server.resource({
  uri: 'example://motd',
  name: 'motd',
  description: 'The message of the day.',
  mimeType: 'text/plain',
  text: 'Reactive streams all the way down.',
});

// A prompt: a message template the client fills in with arguments.
server.prompt({
  name: 'explain',
  description: 'Asks for an explanation of a topic.',
  arguments: [{ name: 'topic', required: true }],
  handler: ({ topic }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Explain ${topic} to a newcomer.` } }],
  }),
});

// Serve one client on this process's stdin and stdout.
server.connect(createStdioServerTransport());
process.stderr.write('stdio-example: serving MCP on stdin/stdout (it exits when stdin ends)\n');
