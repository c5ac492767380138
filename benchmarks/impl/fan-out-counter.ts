/** Counts deliveries across many clients and resolves when a target is reached. */
export interface DeliveryCounter {
  /** Records one delivery. */
  delivered(): void;
  /** Resolves once `count` more deliveries than so far have been recorded. */
  expect(count: number): Promise<void>;
}

export function createDeliveryCounter(): DeliveryCounter {
  let received = 0;
  let target = 0;
  let wake: (() => void) | undefined;
  return {
    delivered() {
      received++;
      if (received >= target && wake) {
        const done = wake;
        wake = undefined;
        done();
      }
    },
    expect(count) {
      target += count;
      if (received >= target) return Promise.resolve();
      return new Promise((resolve) => (wake = resolve));
    },
  };
}
