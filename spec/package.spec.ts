import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

// The built package (npm test builds first) must load both ways, as one module instance.
const ROOT = resolve(__dirname, '..');
const run = (args: string[]) => execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' }).trim();

describe('the built package', () => {
  it('loads with require("rxmcp")', () => {
    const out = run(['-e', "const m = require('rxmcp'); console.log(typeof m.createServer, typeof m.connect, m.LATEST_REVISION)"]);
    expect(out).toBe('function function 2026-07-28');
  });

  it('loads with import from "rxmcp", sharing classes with the CommonJS build', () => {
    const out = run([
      '--input-type=module',
      '-e',
      "import { createServer, JsonRpcError } from 'rxmcp'; import { createRequire } from 'node:module';" +
        "const cjs = createRequire(import.meta.url)('rxmcp');" +
        'console.log(typeof createServer, JsonRpcError === cjs.JsonRpcError)',
    ]);
    expect(out).toBe('function true');
  });
});
