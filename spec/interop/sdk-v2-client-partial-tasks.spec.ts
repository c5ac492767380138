import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Subject } from 'rxjs';
import { concat, of } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import type { TaskEvent } from '../../lib/client/tasks/task-follower';
import { partialResult } from '../../lib/connection/handler-events';
import { PARTIAL_RESULTS_EXTENSION } from '../../lib/connection/partial-results';
import { TASKS_EXTENSION } from '../../lib/schema/tasks';
import { partialResults } from '../../lib/server/partial-results';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import { startStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../lib/transport/http-server/streamable-http/streamable-http-server';
import { eventually } from '../support/until';
import { drivenHandler } from '../support/driven-tool';

// Partial tool results of a task of the 2026-07-28 tasks extension (SEP-2998 pieces kept with the
// task, given by `tasks/get` to a caller that declared them), and the official TypeScript SDK v2
// client (2.4), which knows nothing of partial results, over Streamable HTTP: it gets the whole
// result, and no piece, whether the tool answers it at once or it follows a task by `tasks/get`.

const TaskAnswer = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  result: z
    .looseObject({ content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })) })
    .optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});

/**
 * A fetch that gives a `tasks/get` POST its `Mcp-Name` header (the task id, as the tasks extension's
 * Streamable HTTP binding asks), which a client that knows nothing of the extension does not send.
 */
const namingTasks: typeof fetch = (input, init) => {
  const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : undefined;
  if (body?.method !== 'tasks/get') return fetch(input, init);
  const headers = new Headers(init?.headers);
  headers.set('mcp-name', String((body.params as Record<string, unknown>).taskId));
  return fetch(input, { ...init, headers });
};

describe('partial results of a 2026-07-28 task, and the official SDK v2 client, which knows nothing of them', () => {
  let server: McpServer;
  let running: RunningStreamableHttpServer;
  let runs: Subject<unknown>[];
  let rxmcp: McpClient | undefined;
  let sdk: Client | undefined;

  beforeEach(async () => {
    runs = [];
    server = createServer({
      name: 'writer',
      version: '1.0.0',
      logging: false,
      tasks: { pollIntervalMs: 20 },
      extensions: [partialResults()],
    });
    server.tool({
      name: 'write',
      description: 'writes what the test pushes',
      execution: { taskSupport: 'optional' },
      handler: drivenHandler(runs),
    });
    server.tool({
      name: 'spell',
      description: 'a piece per letter, then the word',
      execution: { taskSupport: 'optional' },
      handler: () => concat(of(partialResult('a'), partialResult('b')), of(textResult('ab'))),
    });
    running = await startStreamableHttpServer({ server, host: '127.0.0.1', port: 0 });
  });

  afterEach(async () => {
    await sdk?.close();
    rxmcp?.close();
    server.close();
    await running.close();
    sdk = undefined;
    rxmcp = undefined;
  });

  async function sdkClient(capabilities: Record<string, unknown>): Promise<Client> {
    const client = new Client(
      { name: 'sdk-v2', version: '2.4.0' },
      { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url.href), { fetch: namingTasks }));
    return client;
  }

  it('gets the whole result of a tool that emits pieces, answered at once (it runs no tasks)', async () => {
    sdk = await sdkClient({});
    const result = await sdk.callTool({ name: 'spell', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'ab' }]);
  });

  it('following by tasks/get a task whose pieces an rxmcp client asked for, gets none of them, then the whole result', async () => {
    rxmcp = await connect(createStreamableHttpClientTransport({ url: running.url }), {
      name: 'reader',
      version: '1.0.0',
      protocolVersion: '2026-07-28',
      tasks: true,
      partialResults: true,
    });
    const events: TaskEvent[] = [];
    let done = false;
    rxmcp.tasks.callTool('write', {}).subscribe({ next: (event) => events.push(event), complete: () => (done = true) });
    await eventually(() => runs.length === 1 && events.length > 0);
    const taskId = (events[0] as Extract<TaskEvent, { type: 'status' }>).task.taskId;
    runs[0]!.next(partialResult('a'));
    runs[0]!.next(partialResult('b'));
    await eventually(() => events.filter((event) => event.type === 'partial').length === 2);

    sdk = await sdkClient({ extensions: { [TASKS_EXTENSION]: {} } });
    const working = await sdk.request({ method: 'tasks/get', params: { taskId } }, TaskAnswer);
    expect(working).toMatchObject({ taskId, status: 'working' });
    expect(working._meta?.[PARTIAL_RESULTS_EXTENSION]).toBeUndefined();

    runs[0]!.next(partialResult('c'));
    runs[0]!.next(textResult('abc'));
    runs[0]!.complete();
    await eventually(() => done);
    const completed = await sdk.request({ method: 'tasks/get', params: { taskId } }, TaskAnswer);
    expect(completed).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'abc' }] } });
    expect(completed._meta?.[PARTIAL_RESULTS_EXTENSION]).toBeUndefined();
    // What sets it apart: a caller declaring the SEP's bare partialResults capability is given them.
    const declaring = await sdkClient({ partialResults: {}, extensions: { [TASKS_EXTENSION]: {} } });
    try {
      const given = await declaring.request({ method: 'tasks/get', params: { taskId } }, TaskAnswer);
      const carried = given._meta?.[PARTIAL_RESULTS_EXTENSION] as { pieces: Array<{ seq: number }> } | undefined;
      expect(carried?.pieces.map((piece) => piece.seq)).toEqual([0, 1, 2]);
    } finally {
      await declaring.close();
    }
    // The rxmcp client, which asked, had every piece once, in order, before the same result.
    expect(events.filter((event) => event.type === 'partial').map((event) => event.seq)).toEqual([0, 1, 2]);
    expect(events.at(-1)).toMatchObject({ type: 'result', result: { content: [{ type: 'text', text: 'abc' }] } });
  });
});
