import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The conformance runner's verdict on one scenario's checks (scripts/conformance.cjs).
const runner = jest.requireActual<{
  checkProblems(scenario: string, checks: readonly Record<string, unknown>[]): string[];
  problems(dir: string, skip?: RegExp): string[];
}>('../scripts/conformance.cjs');

const check = (status: string, extra: Record<string, unknown> = {}) => ({ id: `c-${status}`, status, ...extra });

describe('the conformance runner’s verdict', () => {
  it('fails a scenario that recorded no checks', () => {
    expect(runner.checkProblems('tools-list-2026', [])).toEqual(['tools-list-2026: no checks were recorded']);
  });

  it('fails on FAILURE and WARNING, and lets SKIPPED and INFO pass in other scenarios', () => {
    const found = runner.checkProblems('server-x', [
      check('SUCCESS'),
      check('SKIPPED'),
      check('INFO'),
      check('WARNING'),
    ]);
    expect(found).toEqual([expect.stringMatching(/^server-x: WARNING c-WARNING/)]);
  });

  it('needs every check of a skills scenario to succeed: a skipped or untestable one proves nothing', () => {
    expect(runner.checkProblems('sep-2640-client-no-prefetch-2026-11-26', [check('SUCCESS')])).toEqual([]);
    expect(runner.checkProblems('sep-2640-client-no-prefetch-2026-11-26', [check('SKIPPED')])).toEqual([
      expect.stringMatching(/SKIPPED c-SKIPPED proves nothing/),
    ]);
    expect(
      runner.checkProblems('server-sep-2640-skills-directory-2026', [check('SUCCESS'), check('INFO', { details: {} })]),
    ).toHaveLength(1);
    expect(
      runner.checkProblems('server-sep-2640-skills-manifest-2026', [
        check('SUCCESS', { details: { untestable: true } }),
      ]),
    ).toHaveLength(1);
  });

  it('reads the checks.json files of a results folder, naming each scenario folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-'));
    try {
      mkdirSync(join(dir, 'sep-2640-client-verify-size-1'), { recursive: true });
      writeFileSync(join(dir, 'sep-2640-client-verify-size-1', 'checks.json'), JSON.stringify([check('SKIPPED')]));
      mkdirSync(join(dir, 'tasks-x-1'), { recursive: true });
      writeFileSync(join(dir, 'tasks-x-1', 'checks.json'), JSON.stringify([check('FAILURE')]));
      expect(runner.problems(dir, /^tasks-/)).toEqual([
        expect.stringMatching(/^sep-2640-client-verify-size-1: SKIPPED/),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
