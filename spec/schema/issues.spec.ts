import type { z } from 'zod';
import { describeIssues, formatPath, toValidationIssues } from '../../lib/validation/issues';
import { paramsSchemaFor } from '../../lib/schema/methods';
import { CallToolResultSchema } from '../../lib/schema/tools';

function issuesOf(schema: z.ZodType, value: unknown) {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected a failure');
  return toValidationIssues(result.error);
}

describe('toValidationIssues', () => {
  it('names the field and what was wrong with it', () => {
    const params = paramsSchemaFor('tools/call', '2025-11-25')!;
    expect(issuesOf(params, { name: 5 })).toEqual([{ path: 'name', message: 'expected string, received number' }]);
  });

  it('reports a missing field as required', () => {
    const params = paramsSchemaFor('prompts/get', '2025-11-25')!;
    expect(issuesOf(params, {})).toEqual([{ path: 'name', message: 'required, expected string' }]);
  });

  it('writes array indices in brackets', () => {
    expect(
      issuesOf(CallToolResultSchema, {
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 1 },
        ],
      }),
    ).toEqual([{ path: 'content[1].text', message: 'expected string, received number' }]);
  });

  it('calls a record an object', () => {
    const params = paramsSchemaFor('tools/call', '2025-11-25')!;
    expect(issuesOf(params, { name: 'a', arguments: 'x' })).toEqual([
      { path: 'arguments', message: 'expected object, received string' },
    ]);
  });

  it('reports the closest alternative of a union', () => {
    const params = paramsSchemaFor('elicitation/create', '2025-11-25')!;
    const issues = issuesOf(params, { mode: 'url', message: 'm', elicitationId: 'e' });
    expect(issues).toContainEqual({ path: 'url', message: 'required, expected string' });
  });

  it('names the root as the empty path', () => {
    expect(issuesOf(CallToolResultSchema, null)).toEqual([{ path: '', message: 'expected object, received null' }]);
  });
});

describe('formatPath', () => {
  it('joins keys with dots and indices with brackets', () => {
    expect(formatPath(['a', 0, 'b', 1, 2])).toBe('a[0].b[1][2]');
    expect(formatPath([0, 'x'])).toBe('[0].x');
    expect(formatPath([])).toBe('');
  });
});

describe('describeIssues', () => {
  it('gives one line', () => {
    expect(
      describeIssues([
        { path: 'arguments.name', message: 'expected string, received number' },
        { path: '', message: 'expected object, received null' },
      ]),
    ).toBe('arguments.name: expected string, received number; (root): expected object, received null');
  });
});
