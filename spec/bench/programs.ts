import { mkdirSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

/** The repository root. */
export const ROOT = resolve(__dirname, '../..');

/**
 * Bundles TypeScript programs (a bench server, the rxmcp command) into runnable CommonJS files, with
 * packages left to node_modules: the bundles are written under node_modules/.cache so that those
 * resolve. Resolves with each entry's bundle path, by the entry's name without extension.
 */
export async function bundlePrograms(entries: readonly string[]): Promise<Record<string, string>> {
  const cache = join(ROOT, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const outdir = mkdtempSync(join(cache, 'bench-spec-'));
  await build({
    entryPoints: entries.map((entry) => resolve(ROOT, entry)),
    outdir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    entryNames: '[name]',
    logLevel: 'error',
  });
  return Object.fromEntries(
    entries.map((entry) => [
      entry.split('/').at(-1)!.replace(/\.ts$/, ''),
      join(outdir, entry.split('/').at(-1)!.replace(/\.ts$/, '.js')),
    ]),
  );
}
