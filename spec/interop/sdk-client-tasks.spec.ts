import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { concat, map, Observable, of, Subject, take, timer } from 'rxjs';
import { z } from 'zod';
import { progress } from '../../lib/connection/handler-events';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';

// The official SDK 1.32 client's experimental tasks API (2025-11-25 task-augmented calls) against
// an rxmcp server over Streamable HTTP: the tool handlers are plain Observables, run as tasks.

let running: RunningStreamableHttpServer | undefined;
let server: McpServer | undefined;
let client: Client | undefined;
/** Unsubscriptions of `forever` before it finished. */
let stopped: Subject<void>;

function makeServer(): McpServer {
  const made = createServer({ name: 'rxmcp-tasks', version: '1.0.0', tasks: { pollIntervalMs: 10 } });
  made.tool({
    name: 'count',
    description: 'Counts to n, a step every 10 ms, then answers',
    inputSchema: z.object({ n: z.number().int().min(1).max(10) }),
    execution: { taskSupport: 'optional' },
    handler: ({ n }) =>
      concat(
        timer(0, 10).pipe(
          take(n),
          map((i) => progress(i + 1, n, `step ${i + 1}`)),
        ),
        of({ content: [{ type: 'text' as const, text: `counted to ${n}` }] }),
      ),
  });
  made.tool({
    name: 'forever',
    description: 'Never finishes on its own',
    execution: { taskSupport: 'required' },
    handler: () =>
      new Observable<never>(() => () => {
        stopped.next();
      }),
  });
  made.tool({
    name: 'confirm',
    description: 'Asks the user to confirm',
    execution: { taskSupport: 'optional' },
    handler: (_args, context) =>
      context
        .elicit({ message: 'Go ahead?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } })
        .pipe(map((answer) => ({ content: [{ type: 'text' as const, text: `answer: ${answer.action}` }] }))),
  });
  return made;
}

beforeEach(async () => {
  stopped = new Subject<void>();
  server = makeServer();
  const target = server;
  running = await startStreamableHttpServer({ host: '127.0.0.1', port: 0, onSession: (t) => void target.connect(t) });
  client = new Client({ name: 'sdk-tasks', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { ok: true } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
});

afterEach(async () => {
  await client?.close();
  server?.close();
  await running?.close();
  client = undefined;
  server = undefined;
  running = undefined;
});

/** Every message of a task-augmented call, as the SDK streams them. */
async function collect(name: string, args: Record<string, unknown>) {
  const messages: Array<{ type: string; [key: string]: unknown }> = [];
  const stream = client!.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  });
  for await (const message of stream) messages.push(message as never);
  return messages;
}

describe('official SDK 1.32 client (experimental tasks) → rxmcp server over Streamable HTTP', () => {
  it('sees the tasks capability and the tools’ task support', async () => {
    expect(client!.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
    const { tools } = await client!.listTools();
    expect(tools.find((tool) => tool.name === 'forever')?.execution).toEqual({ taskSupport: 'required' });
  });

  it('creates a task, polls its status and gets the result of an Observable handler', async () => {
    const messages = await collect('count', { n: 3 });
    expect(messages[0]).toMatchObject({ type: 'taskCreated', task: { status: 'working', ttl: 60_000 } });
    expect(messages.filter((m) => m.type === 'taskStatus').at(-1)).toMatchObject({ task: { status: 'completed' } });
    expect(messages.at(-1)).toMatchObject({ type: 'result', result: { content: [{ text: 'counted to 3' }] } });
    const taskId = (messages[0]!.task as { taskId: string }).taskId;
    expect(await client!.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
    const { tasks } = await client!.experimental.tasks.listTasks();
    expect(tasks.map((task) => task.taskId)).toContain(taskId);
  });

  it('delivers the elicitation a task waits on and finishes it', async () => {
    const messages = await collect('confirm', {});
    expect(messages.at(-1)).toMatchObject({ type: 'result', result: { content: [{ text: 'answer: accept' }] } });
  });

  it('cancels a task: the handler is unsubscribed and the task reports cancelled', async () => {
    const unsubscribed = new Promise<void>((resolve) => stopped.subscribe(() => resolve()));
    const created = await client!.request(
      { method: 'tools/call', params: { name: 'forever', arguments: {}, task: { ttl: 60_000 } } },
      z.object({ task: z.object({ taskId: z.string(), status: z.string() }).passthrough() }).passthrough(),
    );
    expect(created.task.status).toBe('working');
    const cancelled = await client!.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled.status).toBe('cancelled');
    await unsubscribed;
    expect((await client!.experimental.tasks.getTask(created.task.taskId)).status).toBe('cancelled');
  });
});
