import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** What `scripts/test-programs.cjs` found of each outside program: its path, or how to install it. */
type Manifest = Record<string, { readonly path?: string; readonly missing?: string }>;

const ROOT = resolve(__dirname, '../..');
const SCRIPT = join(ROOT, 'scripts', 'test-programs.cjs');
const manifestFile = (): string =>
  join(process.env.RXMCP_TEST_PROGRAMS_CACHE ?? join(ROOT, '.cache'), 'test-programs.json');

let manifest: Manifest | undefined;

/** The manifest `npm test` wrote before the suites ran; made here (finding, not installing) when jest runs alone. */
function readManifest(): Manifest {
  if (manifest !== undefined) return manifest;
  if (!existsSync(manifestFile())) execFileSync(process.execPath, [SCRIPT, '--check'], { stdio: 'ignore' });
  manifest = JSON.parse(readFileSync(manifestFile(), 'utf8')) as Manifest;
  return manifest;
}

/**
 * The path of an outside program a suite needs (`redis-server`, `redis-cli`, `redis-sentinel`,
 * `chromium`, `promtool`, `prometheus`, `node22`). Throws the line that says how to install it when
 * it is not there, so that the suite fails with that line rather than with `spawn … ENOENT`.
 */
export function programPath(name: string): string {
  const entry = readManifest()[name];
  if (entry === undefined) throw new Error(`${name} is not a program scripts/test-programs.cjs knows`);
  if (entry.path !== undefined && existsSync(entry.path)) return entry.path;
  throw new Error(entry.missing ?? `${name} was at ${entry.path} and is gone: run node scripts/test-programs.cjs`);
}
