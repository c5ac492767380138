import { classify } from '../../lib/jsonrpc/classify';

describe('classify', () => {
  it.each([
    [{ jsonrpc: '2.0', id: 1, method: 'ping' }, 'request'],
    [{ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'x' } }, 'request'],
    [{ jsonrpc: '2.0', method: 'notifications/initialized' }, 'notification'],
    [{ jsonrpc: '2.0', id: 1, result: {} }, 'result'],
    [{ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'nope' } }, 'error'],
    [{ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'bad' } }, 'error'],
    [[{ jsonrpc: '2.0', id: 1, method: 'ping' }], 'batch'],
  ])('classifies %j as %s', (value, kind) => {
    expect(classify(value).kind).toBe(kind);
  });

  it.each([
    ['null', null, null],
    ['a string', 'ping', null],
    ['a missing version', { id: 1, method: 'ping' }, 1],
    ['version 1.0', { jsonrpc: '1.0', id: 1, method: 'ping' }, 1],
    ['a numeric method', { jsonrpc: '2.0', id: 1, method: 5 }, 1],
    ['array params', { jsonrpc: '2.0', id: 1, method: 'ping', params: [] }, 1],
    ['a null request id', { jsonrpc: '2.0', id: null, method: 'ping' }, null],
    ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, null],
    ['a result that is not an object', { jsonrpc: '2.0', id: 1, result: 3 }, 1],
    ['an error without a code', { jsonrpc: '2.0', id: 2, error: { message: 'x' } }, 2],
    ['nothing to do', { jsonrpc: '2.0', id: 3 }, 3],
  ])('rejects %s, keeping the id when it can be read', (_, value, id) => {
    const classified = classify(value);
    expect(classified.kind).toBe('invalid');
    expect(classified).toMatchObject({ id, reason: expect.any(String) });
  });

  it('keeps the very object it was given (no copy on the hot path)', () => {
    const message = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const classified = classify(message);
    expect(classified.kind === 'request' && classified.message).toBe(message);
  });
});
