/**
 * The official JSON Schema of each revision (copied into spec/fixtures/schema) and the reference
 * validator built from it, which the agreement and example specs hold the zod schemas to.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Revision } from '../../lib/schema/revisions';

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

/** The official JSON Schema of `revision`. */
export function loadSchema(revision: Revision): Record<string, unknown> {
  return JSON.parse(readFileSync(join(__dirname, '../fixtures/schema', `${revision}.json`), 'utf8')) as Record<
    string,
    unknown
  >;
}

/** The reference validator: ajv for the schema's dialect, formats checked except the exceptions. */
export function referenceValidator(
  root: Record<string, unknown>,
  ignoreFormats: boolean,
): (name: string) => ValidateFunction {
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
