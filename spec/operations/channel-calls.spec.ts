import { ChannelCalls } from '../../lib/operations/channel-calls';

describe('ChannelCalls', () => {
  it('keeps calls by id, the first in its fields and the others in a table, in any order of ending', () => {
    const calls = new ChannelCalls<string>();
    expect(calls.size).toBe(0);
    calls.add(1, 'one');
    calls.add(2, 'two');
    calls.add('3', 'three');
    expect([calls.size, calls.has(1), calls.has(2), calls.has('3'), calls.has(3)]).toEqual([
      3,
      true,
      true,
      true,
      false,
    ]);
    expect(calls.take(1)).toBe('one');
    expect([calls.size, calls.has(1), calls.has(2), calls.take(1)]).toEqual([2, false, true, undefined]);
    // While the table holds calls, the next one joins them there.
    calls.add(4, 'four');
    expect([calls.size, calls.has(4)]).toEqual([3, true]);
    expect([calls.take(2), calls.take('3'), calls.take(4)]).toEqual(['two', 'three', 'four']);
    expect([calls.size, calls.drain(), calls.take(4)]).toEqual([0, [], undefined]);
  });

  it('finds an id that waits in the table after the fields were freed, and takes it once', () => {
    const calls = new ChannelCalls<string>();
    calls.add(1, 'one');
    calls.add(2, 'two');
    calls.take(1);
    expect([calls.size, calls.has(2)]).toEqual([1, true]);
    expect([calls.take(2), calls.take(2)]).toEqual(['two', undefined]);
    expect([calls.size, calls.has(2)]).toEqual([0, false]);
  });

  it('drains every call waiting, the one in its fields first, and is empty after', () => {
    const calls = new ChannelCalls<string>();
    for (let id = 10; id < 80; id++) calls.add(id, `call ${id}`);
    calls.add('text', 'call text');
    expect(calls.take(40)).toBe('call 40');
    const drained = calls.drain();
    expect(drained).toHaveLength(70);
    expect(drained[0]).toBe('call 10');
    expect(new Set(drained)).toEqual(
      new Set([...Array.from({ length: 70 }, (_, i) => `call ${i + 10}`).filter((c) => c !== 'call 40'), 'call text']),
    );
    expect([calls.size, calls.has(10), calls.has(79), calls.has('text'), calls.drain()]).toEqual([
      0,
      false,
      false,
      false,
      [],
    ]);
  });

  it('refuses an id that waits already, in its fields or in the table, and keeps the first call', () => {
    const calls = new ChannelCalls<string>();
    expect([calls.add(1, 'one'), calls.add(2, 'two'), calls.add('x', 'ex')]).toEqual([true, true, true]);
    expect([calls.add(1, 'again'), calls.add(2, 'again'), calls.add('x', 'again')]).toEqual([false, false, false]);
    expect([calls.size, calls.take(1), calls.take(2), calls.take('x')]).toEqual([3, 'one', 'two', 'ex']);
    expect([calls.add(1, 'later'), calls.take(1)]).toEqual([true, 'later']);
  });
});
