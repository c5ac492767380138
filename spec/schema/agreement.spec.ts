/**
 * zod and the official JSON Schema of each revision must give the same verdict on every instance:
 * generated ones (valid instances of every definition and their mutations) and hand-written ones.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { schemasFor } from '../../lib/schema/definitions';
import { SUPPORTED_REVISIONS, type Revision } from '../../lib/schema/revisions';
import { expectedVerdict, HAND_WRITTEN_CASES } from './cases';
import { JsonSchemaCorpus, type CorpusInstance } from './json-schema-corpus';

/**
 * Where zod and the official schema legitimately disagree. The schemas annotate some strings with a
 * `format`; rxmcp does not check these (peers use custom URI schemes such as `test://`, and
 * checking base64 would cost a pass over every image on the hot path), so the reference
 * validator is told to ignore exactly these formats. Every other keyword must agree.
 */
export const FORMAT_EXCEPTIONS: Readonly<Record<string, string>> = {
  uri: 'URIs are opaque strings to MCP; servers use custom schemes and relative forms',
  'uri-template': 'RFC 6570 templates are parsed where they are expanded, not on receipt',
  byte: 'base64 payloads are decoded by the consumer; validating them would scan every blob',
};

function loadSchema(revision: Revision): Record<string, unknown> {
  return JSON.parse(readFileSync(join(__dirname, '../fixtures/schema', `${revision}.json`), 'utf8')) as Record<
    string,
    unknown
  >;
}

/** The reference validator: ajv for the schema's dialect, formats checked except the exceptions. */
function referenceValidator(root: Record<string, unknown>, ignoreFormats: boolean): (name: string) => ValidateFunction {
  const is2020 = String(root.$schema).includes('2020-12');
  const ajv = is2020 ? new Ajv2020({ strict: false, allErrors: false }) : new Ajv({ strict: false, allErrors: false });
  addFormats(ajv);
  if (ignoreFormats) for (const format of Object.keys(FORMAT_EXCEPTIONS)) ajv.addFormat(format, true);
  ajv.addSchema(root, 'mcp');
  const pointer = is2020 ? '$defs' : 'definitions';
  return (name) => {
    const validate = ajv.getSchema(`mcp#/${pointer}/${name}`);
    if (!validate) throw new Error(`ajv has no ${name}`);
    return validate;
  };
}

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
