import { schemasFor } from '../../lib/schema/definitions';
import {
  inputRequestSchemaFor,
  inputResponseParamsShape,
  inputResponseSchemaFor,
} from '../../lib/schema/input-requests';

const form = {
  mode: 'form',
  message: 'Your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};

describe('inputRequestSchemaFor', () => {
  it('gives the params of each input request of 2026-07-28', () => {
    const elicit = inputRequestSchemaFor('elicitation/create')!;
    expect(elicit).toBe(schemasFor('2026-07-28').ElicitRequestParams);
    expect(elicit.safeParse(form).success).toBe(true);
    expect(elicit.safeParse({ mode: 'url', message: 'Sign in', url: 'https://example.com' }).success).toBe(true);
    expect(elicit.safeParse({ mode: 'url', message: 'Sign in' }).success).toBe(false);
    const sample = inputRequestSchemaFor('sampling/createMessage', '2026-07-28')!;
    expect(sample).toBe(schemasFor('2026-07-28').CreateMessageRequestParams);
    expect(sample.safeParse({ messages: [], maxTokens: 10 }).success).toBe(true);
    expect(sample.safeParse({ messages: [] }).success).toBe(false);
  });

  it('unwraps the optional params of roots/list, so that `params ?? {}` can be checked', () => {
    const roots = inputRequestSchemaFor('roots/list')!;
    expect(roots.safeParse({}).success).toBe(true);
    expect(roots.safeParse({ _meta: 'x' }).success).toBe(false);
  });

  it('needs no request _meta in an input request, which travels inside a result', () => {
    expect(inputRequestSchemaFor('elicitation/create')!.safeParse(form).success).toBe(true);
    // ...unlike the requests a client sends, whose params require it from 2026-07-28.
    expect(schemasFor('2026-07-28').RequestParams!.safeParse({}).success).toBe(false);
  });

  it('is undefined for other methods and for revisions without multi round-trip requests', () => {
    expect(inputRequestSchemaFor('tools/call')).toBeUndefined();
    expect(inputRequestSchemaFor('toString')).toBeUndefined();
    expect(inputRequestSchemaFor('elicitation/create', '2025-11-25')).toBeUndefined();
  });
});

describe('inputResponseSchemaFor', () => {
  it('gives the answer of each input request of 2026-07-28', () => {
    expect(inputResponseSchemaFor('elicitation/create')).toBe(schemasFor('2026-07-28').ElicitResult);
    expect(inputResponseSchemaFor('sampling/createMessage')).toBe(schemasFor('2026-07-28').CreateMessageResult);
    expect(inputResponseSchemaFor('roots/list')).toBe(schemasFor('2026-07-28').ListRootsResult);
  });

  it('checks answers without resultType, which input responses do not carry', () => {
    expect(
      inputResponseSchemaFor('elicitation/create')!.safeParse({ action: 'accept', content: { name: 'a' } }).success,
    ).toBe(true);
    expect(inputResponseSchemaFor('elicitation/create')!.safeParse({ action: 'maybe' }).success).toBe(false);
    expect(inputResponseSchemaFor('roots/list')!.safeParse({ roots: [{ uri: 'file:///a' }] }).success).toBe(true);
    const sampled = { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' };
    expect(inputResponseSchemaFor('sampling/createMessage')!.safeParse(sampled).success).toBe(true);
  });

  it('is undefined for other methods and for revisions without multi round-trip requests', () => {
    expect(inputResponseSchemaFor('tools/call')).toBeUndefined();
    expect(inputResponseSchemaFor('roots/list', '2025-06-18')).toBeUndefined();
  });
});

describe('inputResponseParamsShape', () => {
  it('adds inputResponses and requestState to the params of a retried request from 2026-07-28', () => {
    const shape = inputResponseParamsShape('2026-07-28');
    expect(shape.requestState.safeParse('s').success).toBe(true);
    expect(shape.requestState.safeParse(1).success).toBe(false);
    expect(shape.inputResponses.safeParse({ a: { action: 'decline' } }).success).toBe(true);
    expect(shape.inputResponses.safeParse({ a: { action: 'maybe' } }).success).toBe(false);
  });

  it('leaves those keys unchecked before, where they were unknown', () => {
    expect(inputResponseParamsShape('2025-11-25').requestState.safeParse(1).success).toBe(true);
  });
});
