import pino from 'pino';
import { VirtualTimeScheduler } from 'rxjs';
import type { RequestContext } from '../../../lib/connection/dispatcher';
import { partialResult } from '../../../lib/connection/handler-events';
import { PARTIAL_RESULTS_EXTENSION } from '../../../lib/connection/partial-results';
import { keepPiece, partialsKept, withKeptPartials } from '../../../lib/server/tasks/kept-partials';
import { TaskRunner } from '../../../lib/server/tasks/task-runner';
import type { TaskRecord, TaskStore } from '../../../lib/server/tasks/task-store';

// What a task of the tasks extension keeps of its partial results (SEP-2998), and what `tasks/get`
// gives of them: the newest pieces within a bound of pieces and bytes, the oldest dropped and counted.

const piece = (seq: number, text = `p${seq}`) => ({ partialResultToken: 'k', seq, content: [{ type: 'text', text }] });
const size = (seq: number, text?: string) => Buffer.byteLength(JSON.stringify(piece(seq, text)));
const ROOMY = { maxPieces: 100, maxBytes: 1 << 20 };

describe('keepPiece', () => {
  it('adds pieces oldest first, counting their bytes', () => {
    const kept = keepPiece(keepPiece(undefined, piece(0), ROOMY), piece(1), ROOMY);
    expect(kept).toEqual({ pieces: [piece(0), piece(1)], dropped: 0, bytes: size(0) + size(1) });
  });

  it('drops the oldest past maxPieces, and counts them across calls', () => {
    const bound = { maxPieces: 2, maxBytes: 1 << 20 };
    let kept = keepPiece(undefined, piece(0), bound);
    for (let seq = 1; seq < 5; seq++) kept = keepPiece(kept, piece(seq), bound);
    expect(kept).toEqual({ pieces: [piece(3), piece(4)], dropped: 3, bytes: size(3) + size(4) });
  });

  it('drops the oldest past maxBytes, measured in UTF-8', () => {
    const text = 'é'.repeat(200);
    // Two pieces fit in UTF-8 bytes, where three would fit if code units were counted.
    const bound = { maxPieces: 100, maxBytes: size(0, text) * 2 + 1 };
    expect(JSON.stringify(piece(0, text)).length * 3).toBeLessThan(bound.maxBytes);
    let kept = keepPiece(undefined, piece(0, text), bound);
    for (let seq = 1; seq < 3; seq++) kept = keepPiece(kept, piece(seq, text), bound);
    expect(kept.pieces.map((p) => p.seq)).toEqual([1, 2]);
    expect(kept).toMatchObject({ dropped: 1, bytes: size(1, text) + size(2, text) });
  });

  it('drops a piece larger than maxBytes on its own, with all before it', () => {
    const bound = { maxPieces: 100, maxBytes: size(0) + size(1) };
    const kept = keepPiece(keepPiece(undefined, piece(0), bound), piece(1, 'x'.repeat(500)), bound);
    expect(kept).toEqual({ pieces: [], dropped: 2, bytes: 0 });
    expect(keepPiece(kept, piece(2), bound)).toEqual({ pieces: [piece(2)], dropped: 2, bytes: size(2) });
  });
});

describe('withKeptPartials', () => {
  const record = {
    partials: { pieces: [piece(2), piece(3), piece(4)], dropped: 2, bytes: 0 },
  } as unknown as TaskRecord;
  const context = (capabilities: Record<string, unknown>, meta?: Record<string, unknown>) =>
    ({ peer: { clientCapabilities: capabilities }, meta }) as unknown as RequestContext;
  const declared = { extensions: { [PARTIAL_RESULTS_EXTENSION]: {} } };

  it('gives the pieces from the nextSeq asked for, with the count of those dropped', () => {
    const answer = withKeptPartials(
      { status: 'working' },
      record,
      context(declared, { [PARTIAL_RESULTS_EXTENSION]: { nextSeq: 3 } }),
    );
    expect(answer).toEqual({
      status: 'working',
      _meta: { [PARTIAL_RESULTS_EXTENSION]: { pieces: [piece(3), piece(4)], dropped: 2 } },
    });
  });

  it('adds the pieces beside what the answer’s _meta already carries', () => {
    const related = { 'io.modelcontextprotocol/related-task': { taskId: 't1' } };
    const answer = withKeptPartials({ status: 'working', _meta: related }, record, context(declared));
    expect(answer._meta).toEqual({
      ...related,
      [PARTIAL_RESULTS_EXTENSION]: { pieces: [piece(2), piece(3), piece(4)], dropped: 2 },
    });
  });

  it('gives every piece kept when nextSeq is absent or malformed; takes the SEP’s bare capability', () => {
    for (const nextSeq of [undefined, -1, 1.5, '3']) {
      const meta = nextSeq === undefined ? undefined : { [PARTIAL_RESULTS_EXTENSION]: { nextSeq } };
      const answer = withKeptPartials({}, record, context({ partialResults: {} }, meta));
      expect((answer._meta as Record<string, { pieces: unknown[] }>)[PARTIAL_RESULTS_EXTENSION]!.pieces).toHaveLength(
        3,
      );
    }
  });

  it('leaves the answer as it is for a caller that did not declare partial results, or a task that kept none', () => {
    expect(withKeptPartials({ status: 'working' }, record, context({}))).toEqual({ status: 'working' });
    expect(withKeptPartials({ status: 'working' }, {} as TaskRecord, context(declared))).toEqual({ status: 'working' });
  });
});

describe('a task keeping its partial results', () => {
  it('stores a piece overtaken while a write is under way with what overtook it: fewer writes, nothing lost', async () => {
    const scheduler = new VirtualTimeScheduler();
    const puts: TaskRecord[] = [];
    const waiting: Array<() => void> = [];
    // A store that answers each write when the test says (a remote one, slower than the pieces).
    const store: TaskStore = {
      put: (record) =>
        new Promise<void>((resolve) => {
          puts.push(record);
          waiting.push(resolve);
        }),
      get: () => Promise.resolve(puts.at(-1)),
      list: () => Promise.resolve({ tasks: [] }),
      delete: () => Promise.resolve(),
    };
    const runner = new TaskRunner({
      store,
      scheduler,
      defaultTtlMs: 1000,
      maxTtlMs: 5000,
      pollIntervalMs: 100,
      logger: pino({ level: 'silent' }),
    });
    const context = {
      meta: { partialResultToken: 'k' },
      peer: { clientCapabilities: { extensions: { [PARTIAL_RESULTS_EXTENSION]: {} } } },
    } as unknown as RequestContext;
    const serverCapabilities = { extensions: { [PARTIAL_RESULTS_EXTENSION]: {} } };
    const creating = runner.create({
      design: 'extension',
      method: 'tools/call',
      ...partialsKept(context, serverCapabilities, runner, ROOMY),
    });
    waiting.shift()!();
    const task = await creating;
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    task.next(partialResult('p0'));
    await turn();
    // The first piece's write is under way; the next three are overtaken by the fifth before their turn.
    expect(waiting).toHaveLength(1);
    for (let i = 1; i < 5; i++) task.next(partialResult(`p${i}`));
    while (waiting.length > 0) {
      waiting.shift()!();
      await turn();
    }
    expect(puts.map((record) => record.partials?.pieces.length ?? 0)).toEqual([0, 1, 5]);
    expect(puts.at(-1)?.partials?.pieces.map((p) => p.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(puts.at(-1)?.partials?.pieces[0]).toMatchObject({ partialResultToken: 'k', taskId: task.taskId });
  });

  it('keeps nothing when the call did not ask with a token, or the server does not serve the extension', () => {
    const runner = {} as TaskRunner;
    const declared = { extensions: { [PARTIAL_RESULTS_EXTENSION]: {} } };
    const asking = {
      meta: { partialResultToken: 'k' },
      peer: { clientCapabilities: declared },
    } as unknown as RequestContext;
    const silent = { meta: {}, peer: { clientCapabilities: declared } } as unknown as RequestContext;
    expect(partialsKept(asking, declared, runner, ROOMY).onPartial).toEqual(expect.any(Function));
    expect(partialsKept(silent, declared, runner, ROOMY)).toEqual({});
    expect(partialsKept(asking, {}, runner, ROOMY)).toEqual({});
  });
});
