import { ChannelCalls } from '../../lib/operations/channel-calls';

describe('ChannelCalls', () => {
  it('keeps calls by id, the first in its fields and the others in a map, in any order of ending', () => {
    const calls = new ChannelCalls<string>();
    expect(calls.size).toBe(0);
    calls.put(1, 'one');
    calls.put(2, 'two');
    calls.put('3', 'three');
    expect([calls.size, calls.has(1), calls.has(2), calls.has('3'), calls.has(3)]).toEqual([
      3,
      true,
      true,
      true,
      false,
    ]);
    expect(calls.values().sort()).toEqual(['one', 'three', 'two']);
    expect(calls.take(1)).toBe('one');
    expect([calls.size, calls.has(1), calls.has(2), calls.take(1)]).toEqual([2, false, true, undefined]);
    // The freed fields take the next call; the map keeps the others.
    calls.put(4, 'four');
    expect(calls.values().sort()).toEqual(['four', 'three', 'two']);
    expect([calls.take(2), calls.take('3'), calls.take(4)]).toEqual(['two', 'three', 'four']);
    expect([calls.size, calls.values(), calls.take(4)]).toEqual([0, [], undefined]);
  });

  it('finds an id that waits in the map after the fields were freed, and takes it once', () => {
    const calls = new ChannelCalls<string>();
    calls.put(1, 'one');
    calls.put(2, 'two');
    calls.take(1);
    expect([calls.size, calls.has(2), calls.values()]).toEqual([1, true, ['two']]);
    expect([calls.take(2), calls.take(2)]).toEqual(['two', undefined]);
    expect([calls.size, calls.has(2), calls.values()]).toEqual([0, false, []]);
  });
});
