import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { programPath as ProgramPath } from '../support/programs';

const SCRIPT = resolve(__dirname, '../../scripts/test-programs.cjs');
const PROGRAMS = ['redis-server', 'redis-cli', 'redis-sentinel', 'chromium', 'promtool', 'prometheus', 'node22'];

/** Runs the script with `--check` on a PATH of `bin` alone; returns what it printed and wrote. */
function runOn(
  bin: string,
  cache: string,
): { stderr: string; manifest: Record<string, { path?: string; missing?: string }> } {
  const env: NodeJS.ProcessEnv = { PATH: bin, RXMCP_TEST_PROGRAMS_CACHE: cache, HOME: cache };
  const run = spawnSync(process.execPath, [SCRIPT, '--check'], { env, encoding: 'utf8' });
  expect(run.status).toBe(0);
  return { stderr: run.stderr, manifest: JSON.parse(readFileSync(join(cache, 'test-programs.json'), 'utf8')) };
}

describe('scripts/test-programs.cjs, which npm test runs before the suites', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxmcp-programs-'));
    mkdirSync(join(dir, 'bin'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('on a PATH with none of the programs, names each one on a line of its own with how to install it', () => {
    const { stderr, manifest } = runOn(join(dir, 'bin'), dir);
    const lines = stderr.trim().split('\n');
    for (const name of PROGRAMS) {
      const line = lines.find((text) => text.startsWith(`${name} is not installed;`));
      expect(line).toMatch(/Install it: .+/);
      expect(manifest[name]).toEqual({ missing: line });
    }
    expect(lines.find((text) => text.startsWith('redis-server'))).toContain('apt-get install -y redis-server');
    expect(lines.find((text) => text.startsWith('promtool'))).toContain('apt-get install -y prometheus');
    expect(lines.find((text) => text.startsWith('node22'))).toMatch(
      /npm install --prefix \.cache\/node22 node-\w+-\w+@22|Node 22/,
    );
  });

  it('finds a program on PATH, and Chromium where CHROMIUM_PATH points', () => {
    const fake = join(dir, 'bin', 'redis-server');
    writeFileSync(fake, '#!/bin/sh\nexit 0\n');
    chmodSync(fake, 0o755);
    const browser = join(dir, 'my-chrome');
    writeFileSync(browser, '');
    const env: NodeJS.ProcessEnv = { PATH: join(dir, 'bin'), RXMCP_TEST_PROGRAMS_CACHE: dir, CHROMIUM_PATH: browser };
    execFileSync(process.execPath, [SCRIPT, '--check'], { env, stdio: 'ignore' });
    const manifest = JSON.parse(readFileSync(join(dir, 'test-programs.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest['redis-server']).toEqual({ path: fake });
    expect(manifest.chromium).toEqual({ path: browser });
    expect(manifest['redis-sentinel']).toHaveProperty('missing');
  });

  it('makes a suite that needs a missing program fail with that line, not with ENOENT', () => {
    runOn(join(dir, 'bin'), dir);
    const before = process.env.RXMCP_TEST_PROGRAMS_CACHE;
    process.env.RXMCP_TEST_PROGRAMS_CACHE = dir;
    try {
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { programPath } = require('../support/programs') as { programPath: typeof ProgramPath };
        expect(() => programPath('redis-server')).toThrow(/^redis-server is not installed; .+ Install it: /);
        expect(() => programPath('chromium')).toThrow(/^chromium is not installed;/);
      });
    } finally {
      if (before === undefined) delete process.env.RXMCP_TEST_PROGRAMS_CACHE;
      else process.env.RXMCP_TEST_PROGRAMS_CACHE = before;
    }
  });
});
