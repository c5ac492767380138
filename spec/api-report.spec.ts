import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// The public API as a checked report (scripts/api-report.cjs): api/<entry>.api.md holds every name
// each entry exports with the declaration a user compiles against, from the build npm test made.
// A change to the surface shows as a change to api/, made with `npm run api:report`.
interface Report {
  readonly files: Readonly<Record<string, string>>;
  readonly forgotten: readonly string[];
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildReport, differences } = require('../scripts/api-report.cjs') as {
  buildReport(): Report;
  differences(files: Readonly<Record<string, string>>): string[];
};

const ROOT = resolve(__dirname, '..');

describe('the API report', () => {
  let report: Report;
  beforeAll(() => {
    report = buildReport();
  }, 60_000);

  it('matches the build: api/ was updated with every change to the public surface', () => {
    expect(differences(report.files)).toEqual([]);
  });

  it('has one report per entry of the package, each naming its exports', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const entries = Object.keys(require('../scripts/package-entries.cjs') as Record<string, string>);
    for (const entry of entries) {
      const text = readFileSync(join(ROOT, 'api', `${entry}.api.md`), 'utf8');
      expect(text).toMatch(/^\d+ exports\.$/m);
    }
    expect(report.files['server.api.md']).toContain('## createServer\n\n```ts\nfunction createServer(');
    expect(report.files['index.api.md']).toContain('## RxmcpError\n\n```ts\nabstract class RxmcpError extends Error {');
    expect(existsSync(join(ROOT, 'api', 'not-exported.api.md'))).toBe(true);
  });

  it('would report a declaration that changed', () => {
    const changed = { ...report.files, 'server.api.md': `${report.files['server.api.md']}\n## extra\n` };
    expect(differences(changed)).toEqual(['api/server.api.md differs']);
    expect(differences({ ...report.files, 'gone.api.md': 'x' })).toEqual(['api/gone.api.md is missing']);
  });
});
