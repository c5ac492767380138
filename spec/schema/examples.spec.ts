/**
 * The ready-made messages the 2026-07-28 specification ships, one folder per definition: each must
 * be valid for the official JSON Schema and for the zod schema of that definition, and must come
 * through zod unchanged.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemasFor } from '../../lib/schema/definitions';
import type { Revision } from '../../lib/schema/revisions';
import { loadSchema, referenceValidator } from './reference-validator';

const REVISIONS_WITH_EXAMPLES: readonly Revision[] = ['2026-07-28'];

function examplesOf(revision: Revision): [string, string, unknown][] {
  const root = join(__dirname, '../fixtures/schema/examples', revision);
  return readdirSync(root)
    .sort()
    .flatMap((definition) =>
      readdirSync(join(root, definition))
        .filter((file) => file.endsWith('.json'))
        .sort()
        .map((file): [string, string, unknown] => [
          definition,
          file,
          JSON.parse(readFileSync(join(root, definition, file), 'utf8')),
        ]),
    );
}

describe.each(REVISIONS_WITH_EXAMPLES)('the examples of %s', (revision) => {
  const official = referenceValidator(loadSchema(revision), true);
  const schemas = schemasFor(revision);
  const examples = examplesOf(revision);

  it('are there to check', () => {
    expect(examples.length).toBeGreaterThan(100);
  });

  it.each(examples)('%s/%s is valid for the official schema and for zod, unchanged', (definition, _file, value) => {
    expect(official(definition)(value)).toBe(true);
    const schema = schemas[definition];
    expect(schema).toBeDefined();
    const parsed = schema!.safeParse(value);
    expect(parsed.error?.issues).toBeUndefined();
    expect(parsed.data).toEqual(value);
  });
});
