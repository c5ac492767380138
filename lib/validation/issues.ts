/**
 * Turning zod failures into the `ValidationIssue`s that travel in a -32602 error's `data`.
 */
import type { z } from 'zod';
import type { ValidationIssue } from '../jsonrpc/errors';

type ZodIssue = z.core.$ZodIssue;

/** `['arguments', 'items', 0, 'name']` → `arguments.items[0].name`; the root is the empty string. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

function depth(issues: readonly ZodIssue[]): number {
  return Math.max(0, ...issues.map((issue) => issue.path.length));
}

/**
 * Of a union's branches, the one that got furthest (deepest issue path, then fewest issues):
 * the branch the sender most likely meant.
 */
function closestBranch(branches: readonly (readonly ZodIssue[])[]): readonly ZodIssue[] | undefined {
  let best: readonly ZodIssue[] | undefined;
  for (const branch of branches) {
    if (branch.length === 0) continue;
    if (
      best === undefined ||
      depth(branch) > depth(best) ||
      (depth(branch) === depth(best) && branch.length < best.length)
    ) {
      best = branch;
    }
  }
  return best;
}

function message(issue: ZodIssue): string {
  // zod says "record" for what JSON calls an object.
  const text = issue.message.replace(/^Invalid input: /, '').replace(/\bexpected record\b/, 'expected object');
  if (issue.code === 'invalid_type' && text.endsWith(', received undefined')) {
    return `required, ${text.slice(0, -', received undefined'.length)}`;
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) return 'matches none of the allowed shapes';
  return text;
}

function flatten(issues: readonly ZodIssue[], prefix: readonly PropertyKey[], out: ValidationIssue[]): void {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union') {
      const branch = closestBranch(issue.errors);
      // Only descend when a branch got past the top level: otherwise "none of the shapes" says more.
      if (branch !== undefined && depth(branch) > 0) {
        flatten(branch, path, out);
        continue;
      }
    }
    out.push({ path: formatPath(path), message: message(issue) });
  }
}

/**
 * The issues of a zod error as `{ path, message }` pairs: dotted paths with array indices in
 * brackets (`content[0].text`), messages such as `expected string, received number`. Union
 * failures are reported for the alternative that matched best.
 */
export function toValidationIssues(error: z.ZodError): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  flatten(error.issues as readonly ZodIssue[], [], out);
  return out;
}

/** One readable line: `arguments.name: expected string, received number; content: required array`. */
export function describeIssues(issues: readonly ValidationIssue[]): string {
  if (issues.length === 0) return 'no issues';
  return issues.map((issue) => `${issue.path || '(root)'}: ${issue.message}`).join('; ');
}
