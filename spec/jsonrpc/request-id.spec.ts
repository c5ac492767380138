import { createRequestIdAllocator } from '../../lib/jsonrpc/request-id';

describe('createRequestIdAllocator', () => {
  it('hands out increasing integers, separately per allocator', () => {
    const a = createRequestIdAllocator();
    const b = createRequestIdAllocator(10);
    expect([a.next(), a.next(), b.next(), a.next()]).toEqual([0, 1, 10, 2]);
  });
});
