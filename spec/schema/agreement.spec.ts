/**
 * zod and the official JSON Schema of each revision must give the same verdict on every instance:
 * generated ones (valid instances of every definition and their mutations) and hand-written ones.
 */
import { schemasFor } from '../../lib/schema/definitions';
import { SUPPORTED_REVISIONS, type Revision } from '../../lib/schema/revisions';
import { expectedVerdict, HAND_WRITTEN_CASES } from './cases';
import { JsonSchemaCorpus, type CorpusInstance } from './json-schema-corpus';
import type { FORMAT_EXCEPTIONS } from './reference-validator';
import { loadSchema, referenceValidator } from './reference-validator';

interface Disagreement {
  readonly label: string;
  readonly value: unknown;
  readonly official: boolean;
  readonly zod: boolean;
}

describe.each(SUPPORTED_REVISIONS)('zod schemas and the official JSON Schema of %s', (revision) => {
  const root = loadSchema(revision);
  const corpus = new JsonSchemaCorpus(root);
  const official = referenceValidator(root, true);
  const schemas = schemasFor(revision);

  function disagreements(name: string, instances: readonly CorpusInstance[]): Disagreement[] {
    const validate = official(name);
    const zod = schemas[name]!;
    return instances
      .map(({ label, value }) => ({ label, value, official: validate(value), zod: zod.safeParse(value).success }))
      .filter((d) => d.official !== d.zod);
  }

  it.each(corpus.definitionNames)('agree on generated instances of %s', (name) => {
    const valid = corpus.validInstances(name);
    // The generator itself must produce valid instances, or the mutations prove nothing.
    expect(valid.filter(({ value }) => !official(name)(value)).map((v) => v.label)).toEqual([]);
    const mutations = valid.flatMap(({ label, value }) =>
      corpus.mutations(value).map((m) => ({ label: `${label}: ${m.label}`, value: m.value })),
    );
    expect(disagreements(name, [...valid, ...mutations])).toEqual([]);
  });

  const cases = HAND_WRITTEN_CASES.filter((c) => c.definition in schemas);
  it.each(cases.map((c) => [`${c.definition} (${c.label})`, c] as const))(
    'agree on the hand-written case %s',
    (_, c) => {
      const expected = expectedVerdict(c, revision);
      expect({
        official: official(c.definition)(c.value),
        zod: schemas[c.definition]!.safeParse(c.value).success,
      }).toEqual({ official: expected, zod: expected });
    },
  );
});

describe('format exceptions', () => {
  const revision: Revision = '2025-11-25';
  const strict = referenceValidator(loadSchema(revision), false);
  const schemas = schemasFor(revision);
  const examples: Record<keyof typeof FORMAT_EXCEPTIONS, [string, unknown]> = {
    uri: ['Resource', { uri: 'not a uri', name: 'r' }],
    'uri-template': ['ResourceTemplate', { uriTemplate: 'file:///{unclosed', name: 't' }],
    byte: ['ImageContent', { type: 'image', data: '***not base64***', mimeType: 'image/png' }],
  };

  it.each(Object.entries(examples))('zod accepts what a strict format check rejects: %s', (_, [name, value]) => {
    expect(strict(name)(value)).toBe(false);
    expect(schemas[name]!.safeParse(value).success).toBe(true);
  });
});
