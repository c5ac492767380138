import { seeded } from '../../benchmarks/hostile-frames';
import { paramsPassUnchanged, resultPassesUnchanged } from '../../lib/schema/fast-paths';
import { checkParams, checkResult, paramsSchemaFor, resultSchemaFor } from '../../lib/schema/methods';
import { featuresOf, SUPPORTED_REVISIONS } from '../../lib/schema/revisions';

const HANDSHAKE_REVISIONS = SUPPORTED_REVISIONS.filter((revision) => !featuresOf(revision).modern);
const client = { name: 'client', version: '1.0.0' };
const server = { name: 'server', version: '2.0.0', title: 'Server' };

const plainInitializeParams: unknown[] = [
  { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: client },
  { protocolVersion: '2024-11-05', capabilities: { roots: { listChanged: true }, sampling: {} }, clientInfo: client },
  { protocolVersion: 'x', capabilities: { elicitation: {}, experimental: {} }, clientInfo: { ...client, title: 'C' } },
  { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: client, _meta: { progressToken: 3 } },
];
const otherInitializeParams: unknown[] = [
  null,
  {},
  { capabilities: {}, clientInfo: client },
  { protocolVersion: 1, capabilities: {}, clientInfo: client },
  { protocolVersion: 'v', capabilities: [], clientInfo: client },
  { protocolVersion: 'v', capabilities: { roots: { listChanged: 'yes' } }, clientInfo: client },
  { protocolVersion: 'v', capabilities: { roots: { other: true } }, clientInfo: client },
  { protocolVersion: 'v', capabilities: { sampling: { context: {} } }, clientInfo: client },
  { protocolVersion: 'v', capabilities: { constructor: { listChanged: true } }, clientInfo: client },
  { protocolVersion: 'v', capabilities: { sampling: null }, clientInfo: client },
  { protocolVersion: 'v', capabilities: {}, clientInfo: { name: 'c' } },
  { protocolVersion: 'v', capabilities: {}, clientInfo: { ...client, icons: [] } },
  { protocolVersion: 'v', capabilities: {}, clientInfo: client, extra: 1 },
  { protocolVersion: 'v', capabilities: {}, clientInfo: client, _meta: { other: 1 } },
];
const plainInitializeResults: unknown[] = [
  { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: server },
  {
    protocolVersion: '2025-11-25',
    capabilities: { tools: { listChanged: true }, resources: { subscribe: false, listChanged: true }, logging: {} },
    serverInfo: server,
    instructions: 'Be brief.',
  },
  {
    protocolVersion: '2024-11-05',
    capabilities: { prompts: {}, completions: {} },
    serverInfo: server,
    _meta: { a: 1 },
  },
];
const otherInitializeResults: unknown[] = [
  null,
  { protocolVersion: '2025-11-25', capabilities: {} },
  { protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: 1 } }, serverInfo: server },
  { protocolVersion: '2025-11-25', capabilities: { logging: { level: 'info' } }, serverInfo: server },
  { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: server, instructions: 5 },
  { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: server, _meta: [] },
  { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: server, nextCursor: 'c' },
];

describe('fast paths for the handshake', () => {
  describe.each(HANDSHAKE_REVISIONS)('%s', (revision) => {
    it('accepts the common shapes only where the schema accepts them unchanged', () => {
      const pairs = [
        ['initialize', plainInitializeParams, paramsPassUnchanged, paramsSchemaFor],
        ['initialize', plainInitializeResults, resultPassesUnchanged, resultSchemaFor],
        ['notifications/initialized', [{}, { _meta: {} }, { _meta: { a: [1] } }], paramsPassUnchanged, paramsSchemaFor],
      ] as const;
      for (const [method, values, passes, schemaFor] of pairs) {
        for (const value of values) {
          expect({ value, passes: passes(method, revision, value) }).toEqual({ value, passes: true });
          const parsed = schemaFor(method, revision)!.safeParse(value);
          expect(parsed.success).toBe(true);
          expect(parsed.data).toEqual(value);
        }
      }
    });

    it('leaves every other shape, valid or not, to the schema', () => {
      for (const value of otherInitializeParams) {
        expect({ value, passes: paramsPassUnchanged('initialize', revision, value) }).toEqual({ value, passes: false });
      }
      for (const value of otherInitializeResults) {
        expect({ value, passes: resultPassesUnchanged('initialize', revision, value) }).toEqual({
          value,
          passes: false,
        });
      }
      for (const value of [{ a: 1 }, { _meta: null }, []]) {
        expect(paramsPassUnchanged('notifications/initialized', revision, value)).toBe(false);
      }
    });

    it('checkParams and checkResult answer as the schema does', () => {
      for (const value of [...plainInitializeParams, ...otherInitializeParams]) {
        const expected = paramsSchemaFor('initialize', revision)!.safeParse(value);
        const actual = checkParams('initialize', revision, value)!;
        expect(actual.success).toBe(expected.success);
        if (actual.success) expect(actual.data).toEqual(expected.data);
      }
      for (const value of [...plainInitializeResults, ...otherInitializeResults]) {
        const expected = resultSchemaFor('initialize', revision)!.safeParse(value);
        const actual = checkResult('initialize', revision, value)!;
        expect(actual.success).toBe(expected.success);
        if (actual.success) expect(actual.data).toEqual(expected.data);
      }
    });
  });

  it('has none in the modern revisions', () => {
    for (const revision of SUPPORTED_REVISIONS.filter((r) => featuresOf(r).modern)) {
      expect(paramsPassUnchanged('initialize', revision, plainInitializeParams[0])).toBe(false);
      expect(resultPassesUnchanged('initialize', revision, plainInitializeResults[0])).toBe(false);
      expect(paramsPassUnchanged('notifications/initialized', revision, {})).toBe(false);
    }
  });

  it('never lets through what the schema would refuse or change (seeded)', () => {
    const random = seeded(1125);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const absent = Symbol('absent');
    const capabilityEntries: readonly unknown[] = [
      {},
      {},
      { listChanged: true },
      { listChanged: true },
      { listChanged: 'no' },
      { subscribe: false },
      { subscribe: false, listChanged: true },
      { context: {} },
      { form: {}, url: {} },
      { level: 1 },
      [],
      null,
      absent,
      absent,
      absent,
      absent,
    ];
    const capabilityKeys = ['tools', 'prompts', 'resources', 'roots', 'sampling', 'elicitation', 'logging'];
    const pools: Record<string, readonly unknown[]> = {
      protocolVersion: ['2025-11-25', 7, absent],
      instructions: ['hi', 3, absent, absent, absent],
      info: [client, server, server, { name: 'n' }, { ...client, icons: [] }, { ...client, title: 9 }, 'c', absent],
      _meta: [{}, { progressToken: 1 }, { progressToken: 1.5 }, { other: 'x' }, null, absent, absent, absent],
      extra: [1, absent, absent, absent, absent, absent],
    };
    let fast = 0;
    for (let i = 0; i < 5000; i++) {
      const revision = pick(HANDSHAKE_REVISIONS);
      const capabilities: Record<string, unknown> = {};
      for (let n = Math.floor(random() * 4); n > 0; n--) {
        const entry = pick(capabilityEntries);
        if (entry !== absent) capabilities[pick(capabilityKeys)] = entry;
      }
      const value: Record<string, unknown> = { capabilities };
      for (const [key, values] of Object.entries(pools)) {
        const chosen = pick(values);
        if (chosen !== absent) value[key] = chosen;
      }
      const asParams: Record<string, unknown> = { ...value, clientInfo: value.info };
      const asResult: Record<string, unknown> = { ...value, serverInfo: value.info };
      delete asParams.info;
      delete asResult.info;
      for (const [passes, schema, subject] of [
        [paramsPassUnchanged('initialize', revision, asParams), paramsSchemaFor('initialize', revision)!, asParams],
        [resultPassesUnchanged('initialize', revision, asResult), resultSchemaFor('initialize', revision)!, asResult],
      ] as const) {
        if (!passes) continue;
        fast++;
        const parsed = schema.safeParse(subject);
        expect({ revision, subject, success: parsed.success }).toEqual({ revision, subject, success: true });
        expect(parsed.data).toEqual(subject);
      }
    }
    // The fast paths said yes often enough for the comparison to mean something.
    expect(fast).toBeGreaterThan(100);
  });
});
