import type { Observable, Subject } from 'rxjs';
import { concat, defer, of } from 'rxjs';
import { connect } from '../../lib/client/client';
import type { McpClient } from '../../lib/client/client';
import type { ToolCallEvent } from '../../lib/client/tool-call';
import type { TaskEvent } from '../../lib/client/tasks/task-follower';
import { partialResult, startTask } from '../../lib/connection/handler-events';
import { PARTIAL_RESULT_METHOD, PARTIAL_RESULTS_EXTENSION } from '../../lib/connection/partial-results';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import { partialResults } from '../../lib/server/partial-results';
import { textResult } from '../../lib/server/results';
import { createServer } from '../../lib/server/server';
import type { McpServer } from '../../lib/server/server';
import type { TasksOptions } from '../../lib/server/tasks/task-capabilities';
import { createInMemoryPair } from '../../lib/transport/in-memory/in-memory-transport';
import { drivenHandler } from '../support/driven-tool';

// Partial tool results (SEP-2998, as drafted) of a call that runs as a task of the 2026-07-28 tasks
// extension. The call is answered with the task's handle and no session carries notifications, so
// the server keeps the pieces with the task (the newest, within a bound) and each `tasks/get`
// answer of a caller that declared partial results carries those from the `nextSeq` it asks for;
// `client.tasks.callTool` emits them as `partial` events, in order, each once, before the result.
// The polls run on jest's fake clock; the tool's pieces are pushed by the test.

const POLL_MS = 100;

interface Writer {
  readonly server: McpServer;
  /** The `write` tool's runs, each driven by its Subject. */
  readonly runs: Subject<unknown>[];
}

function writer(tasks: TasksOptions = {}, withExtension = true): Writer {
  const server = createServer({
    name: 'writer',
    version: '1.0.0',
    logging: false,
    tasks: { pollIntervalMs: POLL_MS, ...tasks },
    ...(withExtension ? { extensions: [partialResults()] } : {}),
  });
  const runs: Subject<unknown>[] = [];
  server.tool({
    name: 'write',
    description: 'writes what the test pushes',
    execution: { taskSupport: 'optional' },
    handler: drivenHandler(runs),
  });
  return { server, runs };
}

type Frame = JsonRpcMessage & { id?: number | string; method?: string; params?: Record<string, unknown> };

interface Open {
  readonly client: McpClient;
  /** What the client sent and what it received, in order. */
  readonly sent: Frame[];
  readonly received: Frame[];
}

async function open(server: McpServer, options: { partialResults?: boolean } = {}): Promise<Open> {
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(serverSide);
  const sent: Frame[] = [];
  const received: Frame[] = [];
  serverSide.incoming$.subscribe((frame) => sent.push(frame as Frame));
  clientSide.incoming$.subscribe((frame) => received.push(frame as Frame));
  const client = await connect(clientSide, {
    name: 'reader',
    version: '1.0.0',
    protocolVersion: '2026-07-28',
    tasks: true,
    ...options,
  });
  return { client, sent, received };
}

/** Lets the in-memory messages and the store's answers through (they hop by microtask). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await jest.advanceTimersByTimeAsync(0);
}

/** Follows `events$` into an array; `done` tells whether it completed, `failed` its error. */
function record(events$: Observable<TaskEvent>) {
  const state = { events: [] as TaskEvent[], done: false, failed: undefined as unknown };
  events$.subscribe({
    next: (event) => state.events.push(event),
    error: (error: unknown) => (state.failed = error),
    complete: () => (state.done = true),
  });
  return state;
}

const piece = (text: string) => partialResult({ content: [{ type: 'text', text }], structuredContent: { text } });
const partialEvent = (taskId: string, seq: number, text: string, extra: Record<string, unknown> = {}) => ({
  type: 'partial',
  taskId,
  seq,
  content: [{ type: 'text', text }],
  structuredContent: { text },
  ...extra,
});
/** A `warm-up` tool on `server`: two pieces with the request, then a task whose run `runs` gets. */
function warmUp(server: McpServer, runs: Subject<unknown>[]): void {
  server.tool({
    name: 'warm-up',
    description: 'two pieces with the request, then a task',
    execution: { taskSupport: 'optional' },
    taskStart: 'signalled',
    handler: () => concat(of(piece('early-0'), piece('early-1'), startTask()), defer(drivenHandler(runs))),
  });
}

const kinds = (events: readonly TaskEvent[]) =>
  events.map((event) => {
    if (event.type === 'status') return `status:${event.task.status}`;
    if (event.type === 'partial') return `partial:${event.seq}`;
    return event.type;
  });

/** The last response the client received. */
const lastAnswer = (open: Open) => open.received.filter((frame) => 'result' in frame).at(-1);

/** The `tasks/get` answers the client received, with the `nextSeq` each request asked from. */
function polls(open: Open) {
  const asked = new Map<unknown, unknown>();
  for (const frame of open.sent) {
    if (frame.method !== 'tasks/get') continue;
    const meta = frame.params?._meta as Record<string, unknown> | undefined;
    asked.set(frame.id, (meta?.[PARTIAL_RESULTS_EXTENSION] as { nextSeq?: number } | undefined)?.nextSeq);
  }
  return open.received
    .filter((frame) => asked.has(frame.id) && 'result' in frame)
    .map((frame) => {
      const result = (frame as unknown as { result: Record<string, unknown> }).result;
      const meta = result._meta as Record<string, { pieces: Array<{ seq: number }>; dropped?: number }> | undefined;
      const carried = meta?.[PARTIAL_RESULTS_EXTENSION];
      return {
        nextSeq: asked.get(frame.id),
        status: result.status,
        seqs: carried?.pieces.map((p) => p.seq),
        dropped: carried?.dropped,
      };
    });
}

describe('partial tool results of a task of the 2026-07-28 tasks extension', () => {
  let opened: Open[] = [];
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    opened = [];
  });
  afterEach(() => {
    for (const { client } of opened) client.close();
    jest.useRealTimers();
  });

  async function start(server: McpServer, options: { partialResults?: boolean } = {}): Promise<Open> {
    const made = await open(server, options);
    opened.push(made);
    return made;
  }

  it('come as partial events in seq order, each once, before the result; each poll asks from the next seq', async () => {
    const { server, runs } = writer();
    const reader = await start(server, { partialResults: true });
    const follow = record(reader.client.tasks.callTool('write', {}));
    await settle();
    expect(kinds(follow.events)).toEqual(['status:working']);
    const taskId = (follow.events[0] as Extract<TaskEvent, { type: 'status' }>).task.taskId;
    runs[0]!.next(piece('a'));
    runs[0]!.next(piece('b'));
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    runs[0]!.next(piece('c'));
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    // A poll with nothing new emits nothing.
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    runs[0]!.next(piece('d'));
    runs[0]!.next(textResult('abcd'));
    runs[0]!.complete();
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    expect(follow.failed).toBeUndefined();
    expect(follow.done).toBe(true);
    expect(kinds(follow.events)).toEqual([
      'status:working',
      'partial:0',
      'partial:1',
      'partial:2',
      'partial:3',
      'status:completed',
      'result',
    ]);
    expect(follow.events.filter((event) => event.type === 'partial')).toEqual([
      partialEvent(taskId, 0, 'a'),
      partialEvent(taskId, 1, 'b'),
      partialEvent(taskId, 2, 'c'),
      partialEvent(taskId, 3, 'd'),
    ]);
    expect(follow.events.at(-1)).toMatchObject({
      type: 'result',
      result: { content: [{ type: 'text', text: 'abcd' }] },
    });
    // On the wire: each answer carries only what the request did not have yet.
    expect(polls(reader)).toEqual([
      { nextSeq: undefined, status: 'working', seqs: [0, 1], dropped: undefined },
      { nextSeq: 2, status: 'working', seqs: [2], dropped: undefined },
      { nextSeq: 3, status: 'working', seqs: [], dropped: undefined },
      { nextSeq: 3, status: 'completed', seqs: [3], dropped: undefined },
    ]);
    // The pieces name the call's token and the task.
    const answer = lastAnswer(reader) as unknown as {
      result: { _meta: Record<string, { pieces: Array<Record<string, unknown>> }> };
    };
    const call = reader.sent.find((frame) => frame.method === 'tools/call')!;
    const token = (call.params!._meta as Record<string, unknown>).partialResultToken;
    expect(token).toEqual(expect.any(String));
    expect(answer.result._meta[PARTIAL_RESULTS_EXTENSION]!.pieces).toEqual([
      {
        partialResultToken: token,
        seq: 3,
        content: [{ type: 'text', text: 'd' }],
        structuredContent: { text: 'd' },
        taskId,
      },
    ]);
  });

  it('become status messages, as before, for a client that did not declare partial results', async () => {
    const { server, runs } = writer();
    const reader = await start(server);
    const follow = record(reader.client.tasks.callTool('write', {}));
    await settle();
    runs[0]!.next(piece('a'));
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    runs[0]!.next(piece('b'));
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    runs[0]!.next(textResult('ab'));
    runs[0]!.complete();
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    expect(follow.done).toBe(true);
    expect(follow.events.filter((event) => event.type === 'partial')).toEqual([]);
    const messages = follow.events.flatMap((event) => (event.type === 'status' ? [event.task.statusMessage] : []));
    expect(messages).toEqual([undefined, 'a', 'b', 'b']);
    expect(polls(reader).every((poll) => poll.seqs === undefined)).toBe(true);
    expect(follow.events.at(-1)).toMatchObject({ type: 'result', result: { content: [{ type: 'text', text: 'ab' }] } });
  });

  it('become status messages when the call does not ask for them, though the client declared them', async () => {
    const { server, runs } = writer();
    const reader = await start(server, { partialResults: true });
    const follow = record(reader.client.tasks.callTool('write', {}, { partialResults: false }));
    await settle();
    runs[0]!.next(piece('a'));
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    runs[0]!.next(textResult('a'));
    runs[0]!.complete();
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    expect(follow.done).toBe(true);
    expect(kinds(follow.events)).toEqual(['status:working', 'status:working', 'status:completed', 'result']);
    expect((follow.events[1] as Extract<TaskEvent, { type: 'status' }>).task.statusMessage).toBe('a');
    expect(polls(reader).every((poll) => poll.seqs === undefined)).toBe(true);
  });

  it('become status messages on a server without the partialResults() extension', async () => {
    const { server, runs } = writer({}, false);
    const reader = await start(server, { partialResults: true });
    const follow = record(reader.client.tasks.callTool('write', {}, { partialResults: true }));
    await settle();
    runs[0]!.next(piece('a'));
    runs[0]!.next(textResult('a'));
    runs[0]!.complete();
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    expect(follow.done).toBe(true);
    expect(follow.events.filter((event) => event.type === 'partial')).toEqual([]);
    expect(polls(reader).every((poll) => poll.seqs === undefined)).toBe(true);
  });

  it('are given only to a tasks/get whose caller declared partial results; a follower by id gets all that are kept', async () => {
    const { server, runs } = writer();
    const starter = await start(server, { partialResults: true });
    const first = record(starter.client.tasks.callTool('write', {}));
    await settle();
    const taskId = (first.events[0] as Extract<TaskEvent, { type: 'status' }>).task.taskId;
    runs[0]!.next(piece('a'));
    runs[0]!.next(piece('b'));
    await settle();
    // Another client, which did not declare them, resumes the task: no pieces, not even in its answers.
    const plain = await start(server);
    const blind = record(plain.client.tasks.resume(taskId));
    // A third, which did, resumes it by id (no token of its own): every piece kept, from seq 0.
    const other = await start(server, { partialResults: true });
    const seeing = record(other.client.tasks.resume(taskId));
    await settle();
    runs[0]!.next(textResult('ab'));
    runs[0]!.complete();
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    expect(blind.done && seeing.done && first.done).toBe(true);
    expect(blind.events.filter((event) => event.type === 'partial')).toEqual([]);
    expect(polls(plain).every((poll) => poll.seqs === undefined)).toBe(true);
    expect(seeing.events.filter((event) => event.type === 'partial')).toEqual([
      partialEvent(taskId, 0, 'a'),
      partialEvent(taskId, 1, 'b'),
    ]);
    expect(kinds(first.events)).toEqual(['status:working', 'partial:0', 'partial:1', 'status:completed', 'result']);
  });

  it('are kept within maxPartialResultsPerTask: the oldest are dropped, the answer counts them, the event says what was missed', async () => {
    const { server, runs } = writer({ maxPartialResultsPerTask: 3 });
    const reader = await start(server, { partialResults: true });
    const follow = record(reader.client.tasks.callTool('write', {}));
    await settle();
    const taskId = (follow.events[0] as Extract<TaskEvent, { type: 'status' }>).task.taskId;
    for (const text of ['a', 'b', 'c', 'd', 'e']) runs[0]!.next(piece(text));
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    runs[0]!.next(piece('f'));
    runs[0]!.next(textResult('abcdef'));
    runs[0]!.complete();
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    expect(follow.events.filter((event) => event.type === 'partial')).toEqual([
      partialEvent(taskId, 2, 'c', { missed: 2 }),
      partialEvent(taskId, 3, 'd'),
      partialEvent(taskId, 4, 'e'),
      partialEvent(taskId, 5, 'f'),
    ]);
    expect(polls(reader)).toEqual([
      { nextSeq: undefined, status: 'working', seqs: [2, 3, 4], dropped: 2 },
      { nextSeq: 5, status: 'completed', seqs: [5], dropped: 3 },
    ]);
    // The result is still the whole answer.
    expect(follow.events.at(-1)).toMatchObject({ type: 'result', result: { content: [{ text: 'abcdef' }] } });
  });

  it('are kept within maxPartialResultBytesPerTask, counted in UTF-8 bytes of their JSON', async () => {
    // Each piece is about 572 bytes of JSON in UTF-8 (its token, seq, content, structured content
    // and task id), 372 UTF-16 code units: 1200 bytes hold two, where counting code units would hold three.
    const { server, runs } = writer({ maxPartialResultBytesPerTask: 1200 });
    const reader = await start(server, { partialResults: true });
    const follow = record(reader.client.tasks.callTool('write', {}));
    await settle();
    for (const letter of ['a', 'b', 'c', 'd']) runs[0]!.next(piece(letter + 'é'.repeat(99)));
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    const answer = lastAnswer(reader) as unknown as {
      result: { _meta: Record<string, { pieces: Array<Record<string, unknown>> }> };
    };
    const kept = answer.result._meta[PARTIAL_RESULTS_EXTENSION]!.pieces;
    const bytes = kept.map((one) => Buffer.byteLength(JSON.stringify(one)));
    expect(bytes.reduce((a, b) => a + b)).toBeLessThanOrEqual(1200);
    expect(bytes[0]! * 3).toBeGreaterThan(1200);
    expect(polls(reader)).toEqual([{ nextSeq: undefined, status: 'working', seqs: [2, 3], dropped: 2 }]);
    const partial = follow.events.filter((event) => event.type === 'partial');
    expect(partial.map((event) => [event.seq, event.missed])).toEqual([
      [2, 2],
      [3, undefined],
    ]);
  });

  it('drops a piece larger than the byte bound on its own, and the next one says it was missed', async () => {
    const { server, runs } = writer({ maxPartialResultBytesPerTask: 200 });
    const reader = await start(server, { partialResults: true });
    const follow = record(reader.client.tasks.callTool('write', {}));
    await settle();
    runs[0]!.next(piece('x'.repeat(500)));
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    runs[0]!.next(piece('y'));
    runs[0]!.next(textResult('done'));
    runs[0]!.complete();
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    expect(polls(reader)).toEqual([
      { nextSeq: undefined, status: 'working', seqs: [], dropped: 1 },
      { nextSeq: undefined, status: 'completed', seqs: [1], dropped: 1 },
    ]);
    const partial = follow.events.filter((event) => event.type === 'partial');
    expect(partial.map((event) => [event.seq, event.missed])).toEqual([[1, 1]]);
    expect(follow.events.at(-1)).toMatchObject({ type: 'result', result: { content: [{ text: 'done' }] } });
  });

  it('number a tool’s pieces on from those it sent with the request before it signalled its task', async () => {
    const { server, runs } = writer();
    warmUp(server, runs);
    const reader = await start(server, { partialResults: true });
    const follow = record(reader.client.tasks.callTool('warm-up', {}));
    await settle();
    const taskId = (follow.events[0] as Extract<TaskEvent, { type: 'status' }>).task.taskId;
    runs[0]!.next(piece('late'));
    runs[0]!.next(textResult('done'));
    runs[0]!.complete();
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    // The first two went out with the request, as notifications (no task yet).
    const early = reader.received.filter((frame) => frame.method === PARTIAL_RESULT_METHOD);
    expect(early.map((frame) => [frame.params?.seq, frame.params?.taskId])).toEqual([
      [0, undefined],
      [1, undefined],
    ]);
    expect(polls(reader)).toEqual([{ nextSeq: undefined, status: 'completed', seqs: [2], dropped: undefined }]);
    expect(follow.events.filter((event) => event.type === 'partial')).toEqual([
      partialEvent(taskId, 2, 'late', { missed: 2 }),
    ]);
  });
  it('reach a plain callTool that the server answered with a task, after those sent with the request', async () => {
    const { server, runs } = writer();
    warmUp(server, runs);
    const reader = await start(server, { partialResults: true });
    const events: ToolCallEvent[] = [];
    let done = false;
    reader.client
      .callTool('warm-up', {})
      .subscribe({ next: (event) => events.push(event), complete: () => (done = true) });
    await settle();
    runs[0]!.next(piece('late-2'));
    runs[0]!.next(piece('late-3'));
    runs[0]!.next(textResult('done'));
    runs[0]!.complete();
    await jest.advanceTimersByTimeAsync(POLL_MS);
    await settle();
    expect(done).toBe(true);
    expect(
      events.map((event) =>
        event.type === 'partial' ? `partial:${event.seq}:${event.content?.[0]?.text}` : event.type,
      ),
    ).toEqual(['partial:0:early-0', 'partial:1:early-1', 'partial:2:late-2', 'partial:3:late-3', 'result']);
    expect(events.at(-1)).toMatchObject({ type: 'result', result: { content: [{ text: 'done' }] } });
  });
});
