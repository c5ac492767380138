import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

// The built package (npm run build first): tracing's dependency is optional and loaded on demand.
const ROOT = resolve(__dirname, '../..');
const run = (script: string) => execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' }).trim();
const loadsOpenTelemetry = "Object.keys(require.cache).some((f) => f.includes('@opentelemetry'))";

describe('the built package and @opentelemetry/api', () => {
  beforeAll(() => {
    if (!existsSync(resolve(ROOT, 'dist/lib/server/telemetry.js'))) throw new Error('run npm run build first');
  });

  it('require("rxmcp") does not load @opentelemetry/api', () => {
    expect(
      run(`require('rxmcp'); require('rxmcp/server'); require('rxmcp/client'); console.log(${loadsOpenTelemetry})`),
    ).toBe('false');
  });

  it('loading the tracing middlewares does not load it either; switching tracing on does', () => {
    const out = run(
      "const s = require('./dist/lib/server/telemetry.js'); const c = require('./dist/lib/client/telemetry.js');" +
        `const before = ${loadsOpenTelemetry}; s.serverTracing(); c.clientTracing();` +
        `console.log(before, ${loadsOpenTelemetry})`,
    );
    expect(out).toBe('false true');
  });
});
