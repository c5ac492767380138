import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  InMemoryTaskMessageQueue,
  InMemoryTaskStore,
} from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Result } from '@modelcontextprotocol/sdk/types.js';
import { filter, firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { ClientOptions, McpClient } from '../../lib/client/client';
import { TaskCancelledError } from '../../lib/client/tasks/task-errors';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';

// rxmcp's client against the official SDK's experimental tasks (2025-11-25) over Streamable HTTP on
// 127.0.0.1: a task started, followed to its result, cancelled, and followed again by a second
// client after the first one closed.

/**
 * The SDK's in-memory store binds each task to the session that made it; a server without an
 * authorization context may leave tasks unbound (Tasks → Security Considerations), and that is
 * what lets a client that restarts (a new session) find its task again.
 */
class UnboundTaskStore extends InMemoryTaskStore {
  override createTask(...[params, requestId, request]: Parameters<InMemoryTaskStore['createTask']>) {
    return super.createTask(params, requestId, request);
  }
  override getTask(taskId: string) {
    return super.getTask(taskId);
  }
  override storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result) {
    return super.storeTaskResult(taskId, status, result);
  }
  override getTaskResult(taskId: string) {
    return super.getTaskResult(taskId);
  }
  override updateTaskStatus(...[taskId, status, message]: Parameters<InMemoryTaskStore['updateTaskStatus']>) {
    return super.updateTaskStatus(taskId, status, message);
  }
  override listTasks(cursor?: string) {
    return super.listTasks(cursor);
  }
}

/** Releases the `render` tasks that wait, by label. */
const gates = new Map<string, () => void>();

function sdkServer(store: InMemoryTaskStore): McpServer {
  const mcp = new McpServer(
    { name: 'sdk-tasks', version: '1.0.0' },
    {
      capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: store,
      taskMessageQueue: new InMemoryTaskMessageQueue(),
    },
  );
  mcp.experimental.tasks.registerToolTask(
    'render',
    { description: 'Renders once released', inputSchema: { label: z.string() } },
    {
      async createTask({ label }, extra) {
        const task = await extra.taskStore.createTask({ ttl: 60000, pollInterval: 100 });
        const released = new Promise<void>((resolve) => gates.set(label, resolve));
        void released.then(() =>
          store
            .storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `rendered ${label}` }] })
            .catch(() => undefined),
        );
        return { task };
      },
      getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId),
      getTaskResult: (_args, extra) => extra.taskStore.getTaskResult(extra.taskId) as never,
    },
  );
  mcp.registerTool('plain', { description: 'No tasks here' }, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  return mcp;
}

let http: Server | undefined;
const closers: Array<() => Promise<void>> = [];
/** The SDK servers, one per session, in the order the sessions opened. */
const servers: McpServer[] = [];
const clients: McpClient[] = [];

async function readJson(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/** The SDK server behind Streamable HTTP, one McpServer per session, all sharing one task store. */
async function start(): Promise<string> {
  const store = new UnboundTaskStore();
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const id = req.headers['mcp-session-id'] as string | undefined;
    let transport = id === undefined ? undefined : sessions.get(id);
    if (!transport) {
      if (id !== undefined || !isInitializeRequest(body)) {
        res.writeHead(id === undefined ? 400 : 404).end();
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
      });
      const mcp = sdkServer(store);
      servers.push(mcp);
      closers.push(() => mcp.close());
      await mcp.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  };
  http = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  await new Promise<void>((resolve) => http?.listen(0, '127.0.0.1', resolve));
  closers.push(() => store.cleanup() as unknown as Promise<void>);
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

async function client(url: string, options: Partial<ClientOptions> = {}): Promise<McpClient> {
  const c = await connect(createStreamableHttpClientTransport({ url }), {
    name: 'rxmcp-tasks',
    version: '1.0.0',
    protocolVersion: '2025-11-25',
    ...options,
  });
  clients.push(c);
  return c;
}

/** Resolves once `gate` exists (the server made the task), then opens it. */
async function release(label: string): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!gates.has(label)) {
    if (Date.now() > deadline) throw new Error(`task ${label} was never created`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  gates.get(label)?.();
}

afterEach(async () => {
  for (const c of clients.splice(0)) {
    const closed = firstValueFrom(c.closed$);
    c.close();
    await closed;
  }
  for (const close of closers.splice(0)) await close();
  http?.closeAllConnections();
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
  http = undefined;
  gates.clear();
  servers.length = 0;
});

describe('rxmcp client → official SDK server, 2025-11-25 tasks over Streamable HTTP', () => {
  it('[interop.tasks.result] starts a task, sees its status, and gets the result', async () => {
    const c = await client(await start());
    const events = lastValueFrom(c.tasks.callTool('render', { label: 'one' }).pipe(toArray()));
    await release('one');
    const all = await events;
    const statuses = all.flatMap((e) => (e.type === 'status' ? [e.task.status] : []));
    expect(statuses[0]).toBe('working');
    expect(statuses.at(-1)).toBe('completed');
    expect(all.at(-1)).toMatchObject({
      type: 'result',
      result: { content: [{ type: 'text', text: 'rendered one' }] },
      task: { status: 'completed', ttlMs: 60000, pollIntervalMs: 100 },
    });
  });

  it('[interop.tasks.cancel] cancels a running task; its follower fails with TaskCancelledError', async () => {
    const c = await client(await start());
    const following = lastValueFrom(c.tasks.callTool('render', { label: 'two' }));
    const failed = expect(following).rejects.toThrow(TaskCancelledError);
    const first = await firstValueFrom(
      c.tasks.callTool('render', { label: 'three' }).pipe(filter((e) => e.type === 'status')),
    );
    const id = (first as { task: { taskId: string } }).task.taskId;
    await lastValueFrom(c.tasks.cancel(id), { defaultValue: undefined });
    await expect(lastValueFrom(c.tasks.get(id))).resolves.toMatchObject({ status: 'cancelled' });
    const tasks = await lastValueFrom(c.tasks.list());
    expect(tasks.map((t) => t.taskId)).toContain(id);
    // The first call's task, cancelled too.
    const other = tasks.find((t) => t.taskId !== id && t.status === 'working');
    expect(other).toBeDefined();
    await lastValueFrom(c.tasks.cancel(other!.taskId), { defaultValue: undefined });
    await failed;
  });

  it('[interop.tasks.resume] a second client resumes polling the task by id after the first closed', async () => {
    const url = await start();
    const first = await client(url);
    const started = await firstValueFrom(
      first.tasks.callTool('render', { label: 'four' }).pipe(filter((e) => e.type === 'status')),
    );
    const taskId = (started as { task: { taskId: string } }).task.taskId;
    const closed = firstValueFrom(first.closed$);
    first.close();
    await closed;
    const second = await client(url);
    const events = lastValueFrom(second.tasks.resume(taskId).pipe(toArray()));
    await release('four');
    const all = await events;
    expect(all[0]).toMatchObject({ type: 'status', task: { taskId } });
    expect(all.at(-1)).toMatchObject({
      type: 'result',
      result: { content: [{ type: 'text', text: 'rendered four' }] },
    });
  });

  it('[interop.tasks.tool-level] refuses to run a tool without task support as a task', async () => {
    const c = await client(await start());
    await expect(lastValueFrom(c.tasks.callTool('plain'))).rejects.toThrow(/does not support tasks/);
  });

  it("[interop.tasks.receiver] takes the server's task-augmented sampling request as a task the server polls", async () => {
    const sampled = {
      role: 'assistant' as const,
      content: { type: 'text' as const, text: 'forty-two' },
      model: 'm',
      stopReason: 'endTurn',
    };
    const c = await client(await start(), { tasks: true, sampling: () => sampled });
    // The server's own requests go on the standalone GET stream, open once a first request went.
    await c.promises.ping();
    const stream = servers[0]!.server.experimental.tasks.createMessageStream(
      { messages: [{ role: 'user', content: { type: 'text', text: 'the answer?' } }], maxTokens: 5 },
      { task: { ttl: 5000 } },
    );
    const seen: Array<{ type: string; [key: string]: unknown }> = [];
    for await (const message of stream) seen.push(message as { type: string });
    expect(seen[0]).toMatchObject({ type: 'taskCreated', task: { status: 'working', ttl: 5000, pollInterval: 1000 } });
    expect(seen.at(-1)).toMatchObject({ type: 'result', result: { content: { text: 'forty-two' }, model: 'm' } });
  });
});
