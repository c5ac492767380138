import { JsonRpcError } from '../../lib/jsonrpc/errors';
import { requestBinding, RequestStateSealer } from '../../lib/server/request-state';
import type { RequestStatePayload } from '../../lib/server/request-state';

const KEY_A = 'a'.repeat(32);
const KEY_B = 'b'.repeat(32);
const NOW = 1_000_000;
const binding = requestBinding('tools/call', { name: 'ask', arguments: { x: 1, y: [2, 3] } });
const payload: RequestStatePayload = {
  request: binding,
  expiresAt: NOW + 1000,
  answers: { 'elicitation-0': { action: 'decline' } },
  asked: {},
};

function refusal(act: () => unknown): string {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).code).toBe(-32602);
    return (error as JsonRpcError).message;
  }
  throw new Error('expected a refusal');
}

describe('RequestStateSealer', () => {
  it('opens what it sealed', () => {
    const sealer = new RequestStateSealer({ keys: [KEY_A] });
    expect(sealer.open(sealer.seal(payload), binding, NOW)).toEqual(payload);
  });

  it('binds a state to the request: the same arguments in another key order match, other arguments do not', () => {
    expect(
      requestBinding('tools/call', { arguments: { y: [2, 3], x: 1 }, name: 'ask', _meta: { a: 1 }, requestState: 's' }),
    ).toBe(binding);
    const sealer = new RequestStateSealer({ keys: [KEY_A] });
    const other = requestBinding('tools/call', { name: 'ask', arguments: { x: 2, y: [2, 3] } });
    expect(refusal(() => sealer.open(sealer.seal(payload), other, NOW))).toMatch(/another request/);
  });

  it('refuses a state whose body or signature was changed', () => {
    const sealer = new RequestStateSealer({ keys: [KEY_A] });
    const [version, keyId, body, mac] = sealer.seal(payload).split('.') as [string, string, string, string];
    const changedBody = Buffer.from(JSON.stringify({ ...payload, answers: {} })).toString('base64url');
    expect(refusal(() => sealer.open([version, keyId, changedBody, mac].join('.'), binding, NOW))).toMatch(
      /verification/,
    );
    expect(refusal(() => sealer.open([version, keyId, body, `${mac.slice(1)}x`].join('.'), binding, NOW))).toMatch(
      /verification/,
    );
    expect(refusal(() => sealer.open('garbage', binding, NOW))).toMatch(/malformed/);
    expect(refusal(() => sealer.open(42, binding, NOW))).toMatch(/string/);
  });

  it('refuses a state after it expires', () => {
    const sealer = new RequestStateSealer({ keys: [KEY_A] });
    const token = sealer.seal(payload);
    expect(refusal(() => sealer.open(token, binding, NOW + 1000))).toMatch(/expired/);
  });

  it('refuses a state issued to another principal', () => {
    const sealer = new RequestStateSealer({ keys: [KEY_A] });
    const token = sealer.seal({ ...payload, principal: 'alice' });
    expect(sealer.open(token, binding, NOW, 'alice').principal).toBe('alice');
    expect(refusal(() => sealer.open(token, binding, NOW, 'mallory'))).toMatch(/principal/);
  });

  it('verifies with every key and signs with the first, so keys can be rotated', () => {
    const before = new RequestStateSealer({ keys: [KEY_A] });
    const rotated = new RequestStateSealer({ keys: [KEY_B, KEY_A] });
    const after = new RequestStateSealer({ keys: [KEY_B] });
    const old = before.seal(payload);
    expect(rotated.open(old, binding, NOW)).toEqual(payload);
    expect(refusal(() => after.open(old, binding, NOW))).toMatch(/unknown key/);
    expect(after.open(rotated.seal(payload), binding, NOW)).toEqual(payload);
  });

  it('bounds the size of what it issues and accepts', () => {
    const sealer = new RequestStateSealer({ keys: [KEY_A], maxBytes: 300 });
    const big = { ...payload, answers: { 'sampling-0': { text: 'x'.repeat(400) } } };
    expect(() => sealer.seal(big)).toThrow(/exceeds the 300-byte limit/);
    expect(refusal(() => sealer.open('r1.' + 'x'.repeat(400), binding, NOW))).toMatch(/larger than 300 bytes/);
  });

  it('refuses keys too short to be secret', () => {
    expect(() => new RequestStateSealer({ keys: ['short'] })).toThrow(RangeError);
  });
});
