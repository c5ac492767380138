import { TestScheduler } from 'rxjs/testing';

/**
 * A TestScheduler whose assertions are jest's deep equality. Use one per test, inside `run`, so
 * virtual time starts at frame 0 and `asyncScheduler` (the operators' default) runs on it.
 */
export function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}
