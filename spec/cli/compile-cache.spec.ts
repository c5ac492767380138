import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { enableCompileCache } from '../../lib/cli/compile-cache';
import { programPath } from '../support/programs';

describe('enableCompileCache', () => {
  it('asks Node for its compile cache where Node has one', () => {
    const api = { enableCompileCache: jest.fn() };
    expect(enableCompileCache(api)).toBe(true);
    expect(api.enableCompileCache).toHaveBeenCalledTimes(1);
  });

  it('does nothing on a Node without one, and never throws', () => {
    expect(enableCompileCache({})).toBe(false);
    const failing = {
      enableCompileCache: () => {
        throw new Error('read-only');
      },
    };
    expect(enableCompileCache(failing)).toBe(false);
  });

  it('makes the rxmcp command keep the modules it compiles, on a Node that has the cache', () => {
    // The Node 22 that npm test provides; without the command's request, Node keeps nothing.
    const node22 = programPath('node22');
    const folder = mkdtempSync(join(tmpdir(), 'rxmcp-compile-cache-'));
    try {
      const cli = resolve(__dirname, '../../dist/lib/cli/rxmcp.js');
      const env = {
        ...process.env,
        TMPDIR: folder,
        NODE_COMPILE_CACHE: undefined,
        NODE_DISABLE_COMPILE_CACHE: undefined,
      };
      execFileSync(node22, [cli, 'proxy', '--print-schema'], { env, stdio: 'ignore' });
      const cache = join(folder, 'node-compile-cache');
      expect(existsSync(cache) ? readdirSync(cache, { recursive: true }).length : 0).toBeGreaterThan(1);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
