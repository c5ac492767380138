import {
  ConnectionClosedError,
  ErrorCode,
  JsonRpcError,
  RequestTimeoutError,
  TransportError,
  UnsupportedProtocolVersionError,
} from '../../lib/jsonrpc/errors';

describe('JsonRpcError', () => {
  it('uses the standard codes', () => {
    expect(JsonRpcError.parseError('x').code).toBe(-32700);
    expect(JsonRpcError.invalidRequest('x').code).toBe(-32600);
    expect(JsonRpcError.methodNotFound('x').code).toBe(-32601);
    expect(JsonRpcError.invalidParams('x').code).toBe(-32602);
    expect(JsonRpcError.internalError().code).toBe(-32603);
    expect(ErrorCode.ResourceNotFound).toBe(-32002);
    expect(ErrorCode.UrlElicitationRequired).toBe(-32042);
  });

  it('names the first invalid field and carries every issue in data', () => {
    const error = JsonRpcError.invalidParams([
      { path: 'arguments.a', message: 'expected number' },
      { path: 'arguments.b', message: 'required' },
    ]);
    expect(error.message).toBe('Invalid params: arguments.a: expected number (and 1 more)');
    expect(error.toJSON()).toEqual({ code: -32602, message: error.message, data: { issues: expect.any(Array) } });
  });

  it('round-trips through the wire form', () => {
    const error = JsonRpcError.fromObject({ code: -32002, message: 'Resource not found', data: { uri: 'x://y' } });
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error.toJSON()).toEqual({ code: -32002, message: 'Resource not found', data: { uri: 'x://y' } });
    expect(JsonRpcError.methodNotFound('a').toJSON()).not.toHaveProperty('data');
  });

  it('never puts internal details in the generic internal error', () => {
    expect(JsonRpcError.internalError().toJSON()).toEqual({ code: -32603, message: 'Internal error' });
  });
});

describe('local errors', () => {
  it('say which request and which deadline', () => {
    const error = new RequestTimeoutError('idle', 500, { method: 'tools/call', id: 4 });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('RequestTimeoutError');
    expect(error.message).toBe('Request timed out after 500 ms without a response or progress (tools/call, id 4)');
    expect(new RequestTimeoutError('total', 9).message).toMatch(/maximum total time of 9 ms/);
  });

  it('carry their context and cause', () => {
    const cause = new Error('EPIPE');
    expect(new TransportError('write failed', { cause }).cause).toBe(cause);
    const closed = new ConnectionClosedError('peer closed', { method: 'ping', id: 1 });
    expect(closed).toMatchObject({ name: 'ConnectionClosedError', reason: 'peer closed', method: 'ping', id: 1 });
    expect(new UnsupportedProtocolVersionError('1999', ['2025-11-25']).message).toContain('"1999"');
  });

  it('say in a closed connection’s message what failed underneath, when an error is the cause', () => {
    const cause = new TransportError('POST failed: self-signed certificate');
    const closed = new ConnectionClosedError('POST failed', { method: 'initialize', id: 0 }, { cause });
    expect(closed.message).toBe(
      'Connection closed: POST failed (initialize, id 0); POST failed: self-signed certificate',
    );
    expect(closed.cause).toBe(cause);
    expect(new ConnectionClosedError('stdin ended', {}, { cause: 'not an error' }).message).toBe(
      'Connection closed: stdin ended',
    );
  });
});

describe('JsonRpcError.methodNotFound (#13)', () => {
  it('repeats a short method name and cuts a long one', () => {
    expect(JsonRpcError.methodNotFound('tools/nope').message).toBe('Method not found: tools/nope');
    const message = JsonRpcError.methodNotFound('x'.repeat(1_000_000)).message;
    expect(message.length).toBeLessThan(200);
    expect(message).toContain('(1000000 characters)');
  });
});
