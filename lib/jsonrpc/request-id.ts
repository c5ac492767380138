import type { RequestId } from './message';

/** Hands out request ids unique within one connection and direction. */
export interface RequestIdAllocator {
  next(): RequestId;
}

/**
 * Creates an allocator of increasing integer ids, starting at `start` (default 0).
 * Integers keep the correlator's map keys cheap and match what most peers send.
 */
export function createRequestIdAllocator(start = 0): RequestIdAllocator {
  let nextId = start;
  return { next: () => nextId++ };
}
