import { JsonRpcError } from '../../lib/jsonrpc/errors';
import { callerIsOlder, requestForCaller, resultForCaller } from '../../lib/proxy/revision-shapes';

// What crosses the proxy in the shapes of the revision of the side it goes to.

describe('resultForCaller', () => {
  const modern = {
    contents: [{ uri: 'a://b', text: 'x' }],
    ttlMs: 1000,
    cacheScope: 'private',
    resultType: 'complete',
  };

  it('leaves out the 2026-07-28 fields for a caller of a handshake revision', () => {
    for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])
      expect(resultForCaller(modern, revision)).toEqual({ contents: modern.contents });
  });

  it('keeps them for a 2026-07-28 caller, as the same object', () => {
    expect(resultForCaller(modern, '2026-07-28')).toBe(modern);
  });

  it('leaves out structuredContent before 2025-06-18 and keeps it from then on', () => {
    const called = { content: [{ type: 'text', text: '{}' }], structuredContent: {} };
    expect(resultForCaller(called, '2025-03-26')).toEqual({ content: called.content });
    expect(resultForCaller(called, '2025-06-18')).toBe(called);
  });

  it('returns a result with nothing to leave out as it is, and never changes its input', () => {
    const plain = { contents: [] };
    expect(resultForCaller(plain, '2025-06-18')).toBe(plain);
    resultForCaller(modern, '2025-06-18');
    expect(modern.ttlMs).toBe(1000);
  });
});

describe('callerIsOlder', () => {
  it('is true only when the caller’s revision is older than the upstream’s', () => {
    expect(callerIsOlder('2025-06-18', '2025-11-25')).toBe(true);
    expect(callerIsOlder('2025-11-25', '2025-11-25')).toBe(false);
    expect(callerIsOlder('2026-07-28', '2025-11-25')).toBe(false);
    expect(callerIsOlder('2025-06-18', undefined)).toBe(false);
  });
});

describe('requestForCaller', () => {
  const url = { mode: 'url', message: 'Sign in', url: 'https://example.com' };

  it('gives a 2025-11-25 caller a URL elicitation with an elicitationId, made up when the upstream had none', () => {
    const shaped = requestForCaller('elicitation/create', url, '2025-11-25');
    expect(shaped).toEqual({ ...url, elicitationId: expect.any(String) });
    const kept = { ...url, elicitationId: 'e1' };
    expect(requestForCaller('elicitation/create', kept, '2025-11-25')).toBe(kept);
  });

  it('gives a 2026-07-28 caller a URL elicitation without the elicitationId its revision lacks', () => {
    expect(requestForCaller('elicitation/create', { ...url, elicitationId: 'e1' }, '2026-07-28')).toEqual(url);
  });

  it('gives a 2025-06-18 caller a form without mode, and refuses it a URL elicitation, saying why', () => {
    const form = { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: {} } };
    expect(requestForCaller('elicitation/create', form, '2025-06-18')).toEqual({
      message: 'Name?',
      requestedSchema: form.requestedSchema,
    });
    const refusal = (() => {
      try {
        requestForCaller('elicitation/create', url, '2025-06-18');
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(JsonRpcError);
    expect((refusal as JsonRpcError).code).toBe(-32602);
    expect((refusal as JsonRpcError).message).toContain('2025-06-18, which has no URL-mode elicitation');
  });

  it('refuses sampling with tools to a caller before 2025-11-25 and passes it from then on', () => {
    const sampling = { messages: [], maxTokens: 1, tools: [{ name: 't', inputSchema: { type: 'object' } }] };
    expect(() => requestForCaller('sampling/createMessage', sampling, '2025-06-18')).toThrow(
      'which has no tools in sampling/createMessage',
    );
    expect(requestForCaller('sampling/createMessage', sampling, '2025-11-25')).toBe(sampling);
    const plain = { messages: [], maxTokens: 1 };
    expect(requestForCaller('sampling/createMessage', plain, '2025-06-18')).toBe(plain);
  });
});
