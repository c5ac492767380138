import { firstValueFrom, lastValueFrom } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { ClientOptions, McpClient } from '../../lib/client/client';
import { taskResult } from '../../lib/client/tasks/task-follower';
import type { TaskEvent } from '../../lib/client/tasks/task-follower';
import { createStdioClientTransport } from '../../lib/transport/stdio/stdio-client-transport';
import { createStreamableHttpClientTransport } from '../../lib/transport/http-client/streamable-http/streamable-http-client-transport';
import type { Transport } from '../../lib/transport/transport';
import { EXAMPLE_SERVER, startExample, stopExample } from '../support/example-server';
import type { RunningExample } from '../support/example-server';

// Issue #18: a task started by rxmcp's client on rxmcp's example server (a process of its own),
// over Streamable HTTP and over stdio, and followed again by its id: from a new client after the
// first one closed (2026-07-28, where no session holds the task), and from the same connection
// after its first follower went away (2025-11-25, whose tasks belong to their session).

const INFO = { name: 'tasks-interop', version: '1.0.0' };

async function open(transport: Transport, options: Partial<ClientOptions>): Promise<McpClient> {
  return connect(transport, { ...INFO, tasks: true, ...options });
}

async function close(client: McpClient): Promise<void> {
  const closed = firstValueFrom(client.connection.closed$);
  client.close();
  await closed;
}

/** Starts `slow_compute` as a task and stops following it at its first status: the task's id. */
async function startTask(client: McpClient, label: string): Promise<string> {
  const first = await firstValueFrom(client.tasks.callTool('slow_compute', { seconds: 1, label }));
  expect(first.type).toBe('status');
  return (first as Extract<TaskEvent, { type: 'status' }>).task.taskId;
}

const textOf = (result: { content: ReadonlyArray<{ type: string; text?: string }> }) =>
  result.content.map((block) => block.text ?? '').join('');

describe('tasks between rxmcp’s client and the example server', () => {
  let running: RunningExample;

  beforeAll(async () => {
    running = await startExample();
  });

  afterAll(async () => {
    await stopExample(running);
  });

  it('over Streamable HTTP (2026-07-28): a new client resumes the task the closed one started', async () => {
    const first = await open(createStreamableHttpClientTransport({ url: running.url }), {
      protocolVersion: '2026-07-28',
    });
    const taskId = await startTask(first, 'after a restart');
    await close(first);
    const second = await open(createStreamableHttpClientTransport({ url: running.url }), {
      protocolVersion: '2026-07-28',
    });
    try {
      const result = await lastValueFrom(second.tasks.resume(taskId).pipe(taskResult()));
      expect(textOf(result)).toBe('Computed after a restart in 1 s');
    } finally {
      await close(second);
    }
  });

  it('over Streamable HTTP (2025-11-25): the session follows its task again by id', async () => {
    const client = await open(createStreamableHttpClientTransport({ url: running.url }), {
      protocolVersion: '2025-11-25',
    });
    try {
      const taskId = await startTask(client, 'in a session');
      const result = await lastValueFrom(client.tasks.resume(taskId).pipe(taskResult()));
      expect(textOf(result)).toBe('Computed in a session in 1 s');
    } finally {
      await close(client);
    }
  });

  it('over stdio (2025-11-25): the task runs on after its follower left, and is followed again', async () => {
    const client = await open(
      createStdioClientTransport({ command: process.execPath, args: [EXAMPLE_SERVER], env: { LOG_LEVEL: 'error' } }),
      { protocolVersion: '2025-11-25' },
    );
    try {
      const taskId = await startTask(client, 'over stdio');
      const result = await lastValueFrom(client.tasks.resume(taskId).pipe(taskResult()));
      expect(textOf(result)).toBe('Computed over stdio in 1 s');
    } finally {
      await close(client);
    }
  });
});
