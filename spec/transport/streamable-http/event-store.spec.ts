import { notification } from '../../../lib/jsonrpc/message';
import type { JsonRpcMessage } from '../../../lib/jsonrpc/message';
import { createInMemoryEventStore } from '../../../lib/transport/streamable-http/event-store';

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
