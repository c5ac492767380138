import { notification } from '../../../lib/jsonrpc/message';
import type { JsonRpcMessage } from '../../../lib/jsonrpc/message';
import { createInMemoryEventStore } from '../../../lib/transport/http-server/streamable-http/event-store';
import { ownsStream } from '../../../lib/transport/http-server/streamable-http/resume-stream';

const replay = (store: ReturnType<typeof createInMemoryEventStore>, lastEventId: string) => {
  const sent: Array<[string, unknown]> = [];
  const streamId = store.replayAfter(lastEventId, (eventId, payload) => sent.push([eventId, payload]));
  return { streamId, sent };
};

describe('createInMemoryEventStore', () => {
  it('replays the events of the same stream after the given id, skipping priming events', () => {
    const store = createInMemoryEventStore();
    const prime = store.storeEvent('a', null);
    const a1 = store.storeEvent('a', notification('a/1'));
    store.storeEvent('b', notification('b/1'));
    const a2 = store.storeEvent('a', [notification('a/2')] as JsonRpcMessage[]);
    expect(new Set([prime, a1, a2]).size).toBe(3);
    expect(replay(store, prime)).toEqual({
      streamId: 'a',
      sent: [
        [a1, notification('a/1')],
        [a2, [notification('a/2')]],
      ],
    });
    expect(replay(store, a2)).toEqual({ streamId: 'a', sent: [] });
  });

  it('answers undefined for an unknown id and sends nothing', () => {
    const store = createInMemoryEventStore();
    store.storeEvent('a', notification('x'));
    expect(replay(store, 'never-issued')).toEqual({ streamId: undefined, sent: [] });
  });

  it('evicts the oldest events past maxEvents', () => {
    const store = createInMemoryEventStore({ maxEvents: 2 });
    const first = store.storeEvent('a', notification('1'));
    const second = store.storeEvent('a', notification('2'));
    store.storeEvent('b', notification('3'));
    expect(store.size).toBe(2);
    expect(replay(store, first).streamId).toBeUndefined();
    expect(replay(store, second).sent).toEqual([]);
    expect(() => createInMemoryEventStore({ maxEvents: 0 })).toThrow(RangeError);
  });
});

describe('createInMemoryEventStore bounds (#13)', () => {
  const text = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });
  const replay = (store: ReturnType<typeof createInMemoryEventStore>, id: string) => {
    const seen: unknown[] = [];
    const stream = store.replayAfter(id, (_eventId, payload) =>
      seen.push((payload as unknown as { params: { n: number } }).params.n),
    );
    return { stream, seen };
  };

  it('evicts a flooding session’s own oldest events, never another session’s', () => {
    const store = createInMemoryEventStore({ maxEventsPerSession: 100 });
    const quiet = store.storeEvent('quiet~1', null);
    for (let n = 0; n < 19; n++) store.storeEvent('quiet~1', text(n));
    const loudFirst = store.storeEvent('loud~1', text(-1));
    for (let n = 0; n < 11_000; n++) store.storeEvent('loud~1', text(n));
    expect(replay(store, quiet).seen).toHaveLength(19);
    expect(replay(store, loudFirst).stream).toBeUndefined();
    expect(store.size).toBe(120);
  });

  it('keeps a total bound over all sessions, oldest first', () => {
    const store = createInMemoryEventStore({ maxEvents: 10, maxEventsPerSession: 10 });
    const first = store.storeEvent('a~1', text(0));
    for (let n = 1; n < 10; n++) store.storeEvent(`s${n}~1`, text(n));
    store.storeEvent('late~1', text(10));
    expect(store.size).toBe(10);
    expect(replay(store, first).stream).toBeUndefined();
  });

  it('forgets every stream of a session that ended, leaving the others', () => {
    const store = createInMemoryEventStore();
    const gone = store.storeEvent('ended~1', null);
    store.storeEvent('ended~2', text(1));
    const kept = store.storeEvent('live~1', null);
    store.storeEvent('live~1', text(2));
    store.forgetSession('ended~');
    expect(store.size).toBe(2);
    expect(replay(store, gone).stream).toBeUndefined();
    expect(replay(store, kept).seen).toEqual([2]);
  });
});

describe('a resumption of another session’s stream', () => {
  it('replays nothing when the resuming session does not own the stream', () => {
    const store = createInMemoryEventStore();
    const foreign = store.storeEvent('a~1~1', null);
    store.storeEvent('a~1~1', notification('notifications/message', { n: 1 }));
    const sent: string[] = [];
    const owns = (streamId: string) => ownsStream('a~', streamId);
    expect(store.replayAfter(foreign, (eventId) => sent.push(eventId), owns)).toBeUndefined();
    expect(sent).toEqual([]);
    expect(
      store.replayAfter(
        foreign,
        (eventId) => sent.push(eventId),
        (id) => ownsStream('a~1~', id),
      ),
    ).toBe('a~1~1');
    expect(sent).toHaveLength(1);
  });

  it('takes as a session’s own only its prefix followed by a stream number', () => {
    expect(ownsStream('a~', 'a~0')).toBe(true);
    expect(ownsStream('a~', 'a~12')).toBe(true);
    for (const id of ['a~', 'a~1~0', 'a~x', 'b~0', 'ba~0', 'a~1#2']) expect(ownsStream('a~', id)).toBe(false);
  });
});
