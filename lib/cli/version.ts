import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

let cached: string | undefined;

/**
 * rxmcp's version, from the package.json found above this file (lib/cli in the sources,
 * dist/lib/cli once built, node_modules/rxmcp/dist/lib/cli once installed). `0.0.0` if none is.
 */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  cached = '0.0.0';
  for (let dir = __dirname, up = 0; up < 5; dir = dirname(dir), up++) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === 'rxmcp' && typeof manifest.version === 'string') {
        cached = manifest.version;
        break;
      }
    } catch {
      // No readable package.json at this level: look one up.
    }
  }
  return cached;
}
