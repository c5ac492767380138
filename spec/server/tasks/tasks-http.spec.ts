import { NEVER } from 'rxjs';
import { META } from '../../../lib/connection/modern';
import { TASKS_EXTENSION } from '../../../lib/schema/tasks';
import { createServer } from '../../../lib/server/server';
import type { McpServer } from '../../../lib/server/server';
import { startStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';
import type { RunningStreamableHttpServer } from '../../../lib/transport/http-server/streamable-http/streamable-http-server';

// The tasks extension over Streamable HTTP: `Mcp-Name` mirrors `params.taskId` on the tasks
// methods (SEP-2663: Streamable HTTP routing headers), checked like the other standard headers.

const REVISION = '2026-07-28';
const meta = {
  [META.protocolVersion]: REVISION,
  [META.clientCapabilities]: { extensions: { [TASKS_EXTENSION]: {} } },
};

describe('tasks over Streamable HTTP (2026-07-28)', () => {
  let server: McpServer;
  let running: RunningStreamableHttpServer;

  beforeEach(async () => {
    server = createServer({ name: 'tasks-http', version: '1.0.0', tasks: true });
    server.tool({
      name: 'wait',
      description: 'waits for ever',
      execution: { taskSupport: 'required' },
      handler: () => NEVER,
    });
    running = await startStreamableHttpServer({ server, host: '127.0.0.1', port: 0 });
  });
  afterEach(async () => {
    server.close();
    await running.close();
  });

  const post = async (id: number, method: string, params: Record<string, unknown>, name?: string) => {
    const response = await fetch(running.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': REVISION,
        'mcp-method': method,
        ...(name === undefined ? {} : { 'mcp-name': name }),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('hands out a task, and checks Mcp-Name against the taskId of tasks/get, tasks/update and tasks/cancel', async () => {
    const created = await post(1, 'tools/call', { name: 'wait', arguments: {} }, 'wait');
    expect(created.status).toBe(200);
    const { taskId } = created.body.result as { taskId: string; resultType: string };
    expect(created.body.result).toMatchObject({ resultType: 'task', status: 'working' });

    const matched = await post(2, 'tasks/get', { taskId }, taskId);
    expect(matched).toMatchObject({ status: 200, body: { result: { taskId, status: 'working' } } });
    const mismatched = await post(3, 'tasks/get', { taskId }, 'another-task');
    expect(mismatched).toMatchObject({ status: 400, body: { id: 3, error: { code: -32020 } } });
    const missing = await post(4, 'tasks/update', { taskId, inputResponses: {} });
    expect(missing).toMatchObject({ status: 400, body: { error: { code: -32020 } } });

    const cancelled = await post(5, 'tasks/cancel', { taskId }, taskId);
    expect(cancelled).toMatchObject({ status: 200, body: { result: { resultType: 'complete' } } });
    expect((await post(6, 'tasks/get', { taskId }, taskId)).body.result).toMatchObject({ status: 'cancelled' });
  });
});
