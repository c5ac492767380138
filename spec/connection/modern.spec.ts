import { firstValueFrom } from 'rxjs';
import { createConnection } from '../../lib/connection/create-connection';
import { admitModernRequest, decorateModernResult, isRefusal, META } from '../../lib/connection/modern';
import { UnsupportedProtocolVersionError } from '../../lib/jsonrpc/errors';
import { linkedPair } from '../support/linked-pair';
import { rawPeer } from '../support/raw-peer';

const policy = { supported: ['2025-11-25', '2026-07-28'], capabilities: () => ({ tools: {} }) };
const meta = { [META.protocolVersion]: '2026-07-28', [META.clientCapabilities]: { sampling: {} } };
const request = (method: string, params: Record<string, unknown>) => ({
  jsonrpc: '2.0' as const,
  id: 1,
  method,
  params,
});

describe('admitModernRequest', () => {
  it('admits a request and reads what its _meta says of the client', () => {
    const outcome = admitModernRequest(
      request('tools/call', {
        name: 'x',
        _meta: { ...meta, [META.logLevel]: 'info', [META.clientInfo]: { name: 'c', version: '1' } },
      }),
      policy,
    );
    expect(isRefusal(outcome)).toBe(false);
    if (isRefusal(outcome)) return;
    expect(outcome.peer).toEqual({
      revision: '2026-07-28',
      clientCapabilities: { sampling: {} },
      clientInfo: { name: 'c', version: '1' },
      logLevel: 'info',
    });
  });

  it.each([
    ['no _meta', {}, -32602, 400],
    ['no client capabilities', { _meta: { [META.protocolVersion]: '2026-07-28' } }, -32602, 400],
    ['an unknown log level', { _meta: { ...meta, [META.logLevel]: 'loud' } }, -32602, 400],
    ['a handshake revision', { _meta: { ...meta, [META.protocolVersion]: '2025-11-25' } }, -32022, 400],
  ])('refuses a request with %s', (_what, params, code, httpStatus) => {
    const outcome = admitModernRequest(request('tools/list', params), policy);
    expect(isRefusal(outcome) && [outcome.error.code, outcome.httpStatus]).toEqual([code, httpStatus]);
  });

  it('refuses removed methods, unknown ones and those whose capability the server lacks with -32601 and 404', () => {
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/unsubscribe', 'nope', 'prompts/list']) {
      const outcome = admitModernRequest(request(method, { _meta: meta }), policy);
      expect(isRefusal(outcome) && [outcome.error.code, outcome.httpStatus]).toEqual([-32601, 404]);
    }
  });

  it('checks params against the method schema', () => {
    const outcome = admitModernRequest(request('tools/call', { name: 42, _meta: meta }), policy);
    expect(isRefusal(outcome) && outcome.error.code).toBe(-32602);
  });
});

describe('decorateModernResult', () => {
  const decoration = { serverInfo: { name: 's', version: '1' } };

  it('adds resultType, the server identity and, on cacheable results, caching hints the handler did not set', () => {
    expect(decorateModernResult('tools/list', { tools: [], ttlMs: 5 }, decoration)).toEqual({
      tools: [],
      resultType: 'complete',
      ttlMs: 5,
      cacheScope: 'public',
      _meta: { [META.serverInfo]: { name: 's', version: '1' } },
    });
    expect(decorateModernResult('tools/call', { content: [] }, decoration)).not.toHaveProperty('ttlMs');
  });

  it('leaves an input-required result without caching hints', () => {
    const result = decorateModernResult(
      'resources/read',
      { resultType: 'input_required', requestState: 's' },
      decoration,
    );
    expect(result).not.toHaveProperty('ttlMs');
    expect(result.resultType).toBe('input_required');
  });
});

describe('a client connection in a modern revision', () => {
  it('sends every request with the revision, its capabilities and its info in _meta, and no handshake', async () => {
    const { client, server } = linkedPair();
    const peer = rawPeer(server);
    const connection = createConnection({
      transport: client,
      role: 'client',
      info: { name: 'c', version: '1' },
      capabilities: () => ({ roots: {} }),
    });
    connection.useModern('2026-07-28', { serverInfo: { name: 's', version: '2' } });
    expect(connection.state).toBe('operating');
    expect(connection.revision).toBe('2026-07-28');
    const answered = firstValueFrom(connection.request('tools/list', { cursor: 'a' }));
    const sent = (await peer.next()) as { id: number; params: Record<string, unknown> };
    expect(sent.params).toEqual({
      cursor: 'a',
      _meta: {
        [META.protocolVersion]: '2026-07-28',
        [META.clientCapabilities]: { roots: {} },
        [META.clientInfo]: { name: 'c', version: '1' },
      },
    });
    peer.send({
      jsonrpc: '2.0',
      id: sent.id,
      result: { tools: [], resultType: 'complete', ttlMs: 0, cacheScope: 'public' },
    });
    await expect(answered).resolves.toMatchObject({ tools: [] });
    connection.close();
  });

  it('refuses a revision it does not speak, and a second choice', () => {
    const connection = createConnection({
      transport: linkedPair().client,
      role: 'client',
      info: { name: 'c', version: '1' },
    });
    expect(() => connection.useModern('2099-01-01')).toThrow(UnsupportedProtocolVersionError);
    connection.useModern('2026-07-28');
    expect(() => connection.useModern('2026-07-28')).toThrow(/once per connection/);
    connection.close();
  });
});
