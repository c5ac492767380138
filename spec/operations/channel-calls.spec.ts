import { ChannelCalls } from '../../lib/operations/channel-calls';

describe('ChannelCalls', () => {
  it('keeps calls by id, the first in its fields and the others in a map, in any order of ending', () => {
    const calls = new ChannelCalls<string>();
    expect(calls.size).toBe(0);
    calls.set(1, 'one');
    calls.set(2, 'two');
    calls.set('3', 'three');
    expect([calls.size, calls.has(1), calls.has(2), calls.has('3'), calls.has(3)]).toEqual([
      3,
      true,
      true,
      true,
      false,
    ]);
    expect([calls.get(1), calls.get(2), calls.get('3'), calls.get(4)]).toEqual(['one', 'two', 'three', undefined]);
    calls.delete(1);
    expect([calls.size, calls.has(1), calls.get(2)]).toEqual([2, false, 'two']);
    // The freed fields take the next call; the map keeps the others.
    calls.set(4, 'four');
    expect(calls.values().sort()).toEqual(['four', 'three', 'two']);
    calls.delete(2);
    calls.delete('3');
    calls.delete(4);
    expect([calls.size, calls.values()]).toEqual([0, []]);
  });

  it('keeps an id that waits in the map in one place when it is set again after the fields were freed', () => {
    const calls = new ChannelCalls<string>();
    calls.set(1, 'one');
    calls.set(2, 'two');
    calls.delete(1);
    calls.set(2, 'two again');
    expect([calls.size, calls.get(2), calls.values()]).toEqual([1, 'two again', ['two again']]);
    calls.delete(2);
    expect([calls.size, calls.has(2), calls.values()]).toEqual([0, false, []]);
  });
});
