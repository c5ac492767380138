import { concat, concatMap, delay, from, lastValueFrom, of, toArray } from 'rxjs';
import { z } from 'zod';
import { connect } from '../../lib/client/client';
import type { TaskEvent } from '../../lib/client/tasks/task-follower';
import { partialResult } from '../../lib/connection/handler-events';
import { PARTIAL_RESULT_METHOD } from '../../lib/connection/partial-results';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import { partialResults } from '../../lib/server/partial-results';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';

// Partial tool results (SEP-2998, as drafted) of a call that runs as a 2025-11-25 task: the call is
// answered at once with the task, so the pieces go out in the session, each with the call's token
// and the task's id, and `client.tasks.callTool` emits them as `partial` events before the result.
// Without both sides declaring partial results, the pieces become the task's status messages.

const WORDS = ['one', 'two', 'three'];

function writer(withExtension: boolean) {
  const server = createServer({
    name: 'writer',
    version: '1.0.0',
    logging: false,
    tasks: true,
    ...(withExtension ? { extensions: [partialResults()] } : {}),
  });
  server.tool({
    name: 'write',
    inputSchema: z.object({ words: z.array(z.string()) }),
    execution: { taskSupport: 'optional' },
    handler: ({ words }) =>
      concat(
        from(words).pipe(
          concatMap((word, i) =>
            of(partialResult({ content: [{ type: 'text', text: word }], structuredContent: { i } })).pipe(delay(2)),
          ),
        ),
        of(textResult(words.join(' '))),
      ),
  });
  return server;
}

async function follow(withExtension: boolean, options: { partialResults?: boolean } = {}) {
  const [clientSide, serverSide] = createInMemoryPair();
  writer(withExtension).connect(serverSide);
  const received: JsonRpcMessage[] = [];
  clientSide.incoming$.subscribe((frame) => received.push(frame as JsonRpcMessage));
  const client = await connect(clientSide, {
    name: 'reader',
    version: '1.0.0',
    protocolVersion: '2025-11-25',
    partialResults: true,
  });
  const events: TaskEvent[] = await lastValueFrom(
    client.tasks.callTool('write', { words: WORDS }, { pollIntervalMs: 5, ...options }).pipe(toArray()),
  );
  client.close();
  const pieces = received.filter(
    (message): message is JsonRpcMessage & { params: Record<string, unknown> } =>
      'method' in message && message.method === PARTIAL_RESULT_METHOD,
  );
  return { events, pieces };
}

describe('partial tool results of a 2025-11-25 task', () => {
  it('come as partial events, in order, before the result, each notification naming the task', async () => {
    const { events, pieces } = await follow(true);
    const partial = events.filter((event) => event.type === 'partial');
    const taskId = events.find((event) => event.type === 'status')?.task.taskId;
    expect(taskId).toEqual(expect.any(String));
    expect(partial).toEqual(
      WORDS.map((text, i) => ({
        type: 'partial',
        taskId,
        seq: i,
        content: [{ type: 'text', text }],
        structuredContent: { i },
      })),
    );
    const last = events.at(-1);
    expect(last?.type).toBe('result');
    const types = events.map((event) => event.type);
    expect(types.indexOf('result')).toBeGreaterThan(types.lastIndexOf('partial'));
    // On the wire: one token for the call, the task's id on each piece, seq from 0.
    expect(pieces.map((message) => message.params.seq)).toEqual([0, 1, 2]);
    expect(new Set(pieces.map((message) => message.params.partialResultToken)).size).toBe(1);
    expect(pieces.every((message) => message.params.taskId === taskId)).toBe(true);
  });

  it('are left to progress when the caller does not ask for them: no piece goes out, no partial event', async () => {
    const { events, pieces } = await follow(true, { partialResults: false });
    expect(pieces).toEqual([]);
    expect(events.filter((event) => event.type === 'partial')).toEqual([]);
    expect(events.at(-1)?.type).toBe('result');
  });

  it('are left to progress by a server without the extension, whatever the client asks', async () => {
    const { events, pieces } = await follow(false, { partialResults: true });
    expect(pieces).toEqual([]);
    expect(events.filter((event) => event.type === 'partial')).toEqual([]);
    const result = events.at(-1);
    expect(result?.type === 'result' && result.result.content).toEqual([{ type: 'text', text: 'one two three' }]);
  });
});
