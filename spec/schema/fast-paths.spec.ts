import { seeded } from '../../benchmarks/hostile-frames';
import { paramsPassUnchanged, resultPassesUnchanged } from '../../lib/schema/fast-paths';
import { checkParams, checkResult, paramsSchemaFor, resultSchemaFor } from '../../lib/schema/methods';
import { featuresOf, SUPPORTED_REVISIONS, type Revision } from '../../lib/schema/revisions';

const text = (value: string) => ({ type: 'text', text: value });

/** Values the fast checks must accept: plain shapes of the hottest call. */
const plainParams: unknown[] = [
  { name: 'echo' },
  { name: 'echo', arguments: {} },
  { name: 'echo', arguments: { text: 'hi', nested: { a: [1, 2] } } },
  { name: '', arguments: Object.assign(Object.create(null) as object, { a: 1 }) },
  { name: 'echo', arguments: {}, _meta: { progressToken: 7 } },
  { name: 'echo', _meta: { progressToken: 'token' } },
  { name: 'echo', _meta: {} },
];
const plainResults: unknown[] = [
  { content: [] },
  { content: [text('hello')] },
  { content: [text(''), text('two')], isError: false },
  { content: [text('failed')], isError: true },
  { content: [text('a')], _meta: { a: 1 } },
  { content: [text('a')], _meta: {} },
];

/** Values they must leave to the schema, valid or not. */
const otherParams: unknown[] = [
  null,
  [],
  'tools/call',
  {},
  { name: 42 },
  { name: 'echo', arguments: [] },
  { name: 'echo', arguments: null },
  { name: 'echo', arguments: new Date() },
  { name: 'echo', extra: true },
  { name: 'echo', _meta: { progressToken: 1.5 } },
  { name: 'echo', _meta: { progressToken: Number.MAX_SAFE_INTEGER + 2 } },
  { name: 'echo', _meta: { progressToken: null } },
  { name: 'echo', _meta: { other: 1 } },
  { name: 'echo', _meta: [] },
  { name: 'echo', task: { ttl: 1000 } },
  Object.assign(new (class Params {})(), { name: 'echo' }),
];
const otherResults: unknown[] = [
  null,
  {},
  { content: 'hello' },
  { content: [text('a')], isError: 'no' },
  { content: [text('a')], structuredContent: { a: 1 } },
  { content: [text('a')], _meta: [] },
  { content: [text('a')], _meta: null },
  { content: [{ type: 'text', text: 1 }] },
  { content: [{ type: 'text' }] },
  { content: [{ type: 'text', text: 'a', annotations: { priority: 1 } }] },
  { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] },
  { content: [null] },
  { content: [[]] },
  { content: [text('a')], extra: 1 },
];

/** The `_meta` a 2026-07-28 request must carry. */
const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
};
/** From 2026-07-28: the same plain shapes with the request `_meta` and `resultType` each then requires. */
const plainModernParams: unknown[] = plainParams.map((params) => {
  const value = params as { _meta?: object };
  return { ...value, _meta: { ...modernMeta, ...value._meta } };
});
const serverInfo = { 'io.modelcontextprotocol/serverInfo': { name: 'server', version: '1.0.0', title: 'Server' } };
plainModernParams.push(
  {
    name: 'echo',
    _meta: {
      ...modernMeta,
      'io.modelcontextprotocol/clientInfo': { name: 'client', version: '1.0.0' },
      'io.modelcontextprotocol/logLevel': 'warning',
      progressToken: 'p',
      'example.com/trace': [1, { deep: null }],
    },
  },
  {
    name: 'echo',
    arguments: {},
    _meta: {
      ...modernMeta,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1', title: 'C' },
    },
  },
  // Not of the common shape, valid all the same: the `_meta` schema decides.
  {
    name: 'echo',
    _meta: { ...modernMeta, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } },
  },
  {
    name: 'echo',
    _meta: { ...modernMeta, 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1', websiteUrl: 'u' } },
  },
);
const plainModernResults = [
  ...plainResults.map((result) => ({ resultType: 'complete', ...(result as object) })),
  { resultType: 'complete', content: [text('a')], _meta: serverInfo },
  { resultType: 'complete', content: [], _meta: { ...serverInfo, other: { any: 'thing' } } },
];
const otherModernParams: unknown[] = [
  { name: 'echo' },
  { name: 'echo', arguments: {} },
  { name: 'echo', _meta: { progressToken: 7 } },
  { name: 'echo', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
  { name: 'echo', _meta: { ...modernMeta, 'io.modelcontextprotocol/logLevel': 'loud' } },
  { name: 'echo', _meta: { ...modernMeta, progressToken: 1.5 } },
  { name: 'echo', _meta: modernMeta, inputResponses: {} },
  { name: 'echo', _meta: modernMeta, requestState: 'state' },
  { name: 'echo', _meta: modernMeta, arguments: [] },
  { name: 'echo', _meta: { ...modernMeta, 'io.modelcontextprotocol/protocolVersion': 7 } },
  {
    name: 'echo',
    _meta: { ...modernMeta, 'io.modelcontextprotocol/clientCapabilities': { sampling: { context: 5 } } },
  },
  { name: 'echo', _meta: { ...modernMeta, 'io.modelcontextprotocol/clientCapabilities': [] } },
  { name: 'echo', _meta: { ...modernMeta, 'io.modelcontextprotocol/clientInfo': { name: 'c', version: 1 } } },
  { name: 'echo', _meta: { ...modernMeta, 'io.modelcontextprotocol/clientInfo': { name: 'c' } } },
  { name: 'echo', _meta: { ...modernMeta, 'io.modelcontextprotocol/clientInfo': 'c' } },
];
const otherModernResults: unknown[] = [
  { content: [] },
  { content: [text('a')], isError: false },
  { resultType: 1, content: [] },
  { resultType: 'complete', content: [text('a')], ttlMs: 0 },
  { resultType: 'complete', content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's' } } },
  { resultType: 'complete', content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: 1 } } },
  {
    resultType: 'complete',
    content: [],
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1', websiteUrl: 'https://example.com' } },
  },
];

function valuesOf(revision: Revision) {
  return featuresOf(revision).modern
    ? {
        plain: { params: plainModernParams, results: plainModernResults },
        other: { params: [...otherParams, ...otherModernParams], results: [...otherResults, ...otherModernResults] },
      }
    : { plain: { params: plainParams, results: plainResults }, other: { params: otherParams, results: otherResults } };
}

describe('fast paths for tools/call', () => {
  describe.each(SUPPORTED_REVISIONS)('%s', (revision) => {
    const { plain, other } = valuesOf(revision);

    it('accepts plain params only where the schema accepts them unchanged', () => {
      for (const params of plain.params) {
        expect(paramsPassUnchanged('tools/call', revision, params)).toBe(true);
        const parsed = paramsSchemaFor('tools/call', revision)!.safeParse(params);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(params);
      }
    });

    it('accepts plain text results only where the schema accepts them unchanged', () => {
      for (const result of plain.results) {
        expect(resultPassesUnchanged('tools/call', revision, result)).toBe(true);
        const parsed = resultSchemaFor('tools/call', revision)!.safeParse(result);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(result);
      }
    });

    it('leaves every other value, valid or not, to the schema', () => {
      for (const params of other.params) expect(paramsPassUnchanged('tools/call', revision, params)).toBe(false);
      for (const result of other.results) expect(resultPassesUnchanged('tools/call', revision, result)).toBe(false);
    });

    it('checkParams and checkResult answer as the schema does', () => {
      for (const params of [...plain.params, ...other.params]) {
        const expected = paramsSchemaFor('tools/call', revision)!.safeParse(params);
        const actual = checkParams('tools/call', revision, params)!;
        expect(actual.success).toBe(expected.success);
        if (actual.success) expect(actual.data).toEqual(expected.data);
      }
      for (const result of [...plain.results, ...other.results]) {
        const expected = resultSchemaFor('tools/call', revision)!.safeParse(result);
        const actual = checkResult('tools/call', revision, result)!;
        expect(actual.success).toBe(expected.success);
        if (actual.success) expect(actual.data).toEqual(expected.data);
      }
    });
  });

  it('agrees with the schema on random 2026-07-28 request metadata (seeded)', () => {
    const random = seeded(2607);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const absent = Symbol('absent');
    const pools: Record<string, readonly unknown[]> = {
      'io.modelcontextprotocol/protocolVersion': ['2026-07-28', 7, absent],
      'io.modelcontextprotocol/clientCapabilities': [
        {},
        { sampling: {} },
        { sampling: {}, roots: {}, elicitation: {} },
        { elicitation: { form: {} } },
        { sampling: { context: 5 } },
        { experimental: { a: {} } },
        { extensions: { e: 1 } },
        { unknown: 1 },
        [],
        null,
        absent,
      ],
      'io.modelcontextprotocol/clientInfo': [
        { name: 'c', version: '1' },
        { name: 'c', version: '1', title: 'C' },
        { name: 'c', version: '1', title: 5 },
        { name: 'c', version: '1', icons: [] },
        { name: 'c' },
        { name: 'c', version: 1 },
        'c',
        absent,
      ],
      'io.modelcontextprotocol/logLevel': ['debug', 'emergency', 'loud', 3, absent],
      progressToken: ['p', 1, 1.5, null, absent],
      'example.com/other': [{ any: ['thing'] }, absent],
    };
    const schema = paramsSchemaFor('tools/call', '2026-07-28')!;
    let fast = 0;
    for (let i = 0; i < 2000; i++) {
      const meta: Record<string, unknown> = {};
      for (const [key, values] of Object.entries(pools)) {
        const value = pick(values);
        if (value !== absent) meta[key] = value;
      }
      const params = { name: 'echo', arguments: { text: 'x' }, _meta: meta };
      const expected = schema.safeParse(params);
      const passes = paramsPassUnchanged('tools/call', '2026-07-28', params);
      expect({ meta, passes }).toEqual({ meta, passes: expected.success });
      if (passes) {
        fast++;
        expect(expected.data).toEqual(params);
      }
    }
    // Both answers came up, so the comparison covered each.
    expect(fast).toBeGreaterThan(50);
    expect(fast).toBeLessThan(1950);
  });

  it('has no fast path for other methods, and none for a task-augmented answer', () => {
    expect(paramsPassUnchanged('prompts/get', '2025-11-25', { name: 'p' })).toBe(false);
    expect(resultPassesUnchanged('tools/list', '2025-11-25', { content: [] })).toBe(false);
    const created = checkResult('tools/call', '2025-11-25', { content: [] }, { taskAugmented: true })!;
    expect(created.success).toBe(false);
  });

  it('leaves the plain shapes of the handshake revisions to the schema in 2026-07-28, which rejects them', () => {
    for (const params of plainParams) {
      expect(paramsPassUnchanged('tools/call', '2026-07-28', params)).toBe(false);
      expect(checkParams('tools/call', '2026-07-28', params)!.success).toBe(false);
    }
    for (const result of plainResults) {
      expect(resultPassesUnchanged('tools/call', '2026-07-28', result)).toBe(false);
      expect(checkResult('tools/call', '2026-07-28', result)!.success).toBe(false);
    }
  });

  it('says undefined for a method the revision lacks', () => {
    expect(checkParams('elicitation/create', '2024-11-05', {})).toBeUndefined();
    expect(checkResult('notifications/progress', '2025-11-25', {})).toBeUndefined();
  });
});
