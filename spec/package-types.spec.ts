import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

// The packed package (npm test builds first) in a CommonJS project of the oldest common kind:
// `module: commonjs`, no `esModuleInterop`, every declaration checked (no skipLibCheck). The
// project declares zod and rxjs itself, as the README tells users to, and its package manager
// does not hoist: rxmcp's own dependencies sit in node_modules/rxmcp/node_modules (pnpm and Yarn
// PnP give a project only what it declares), so nothing here works by npm's hoisting.
const ROOT = resolve(__dirname, '..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const execFileAsync = promisify(execFile);

/** What the consumer declares itself: the libraries the README's examples import, and Node's types. */
const OWN_DEPENDENCIES = ['zod', 'rxjs', '@types/node'];

const MAIN = `import { interval, lastValueFrom, map, take } from 'rxjs';
import { z } from 'zod';
import * as root from 'rxmcp';
import { connect } from 'rxmcp/client';
import { createInMemoryPair, createServer } from 'rxmcp/server';
import { createStdioClientTransport } from 'rxmcp/stdio';
import type { StdioClientTransportOptions } from 'rxmcp/stdio';
import { createStreamableHttpClientTransport } from 'rxmcp/http';
import { SessionNotFoundError } from 'rxmcp/http-client';
import { createWebSocketClientTransport } from 'rxmcp/websocket';
import { createMemoryOAuthStorage } from 'rxmcp/auth';
import { featuresOf } from 'rxmcp/core';
import { aggregate } from 'rxmcp/proxy';
import { joinRedisCluster } from 'rxmcp/cluster';

/** Type-checked, never called: the environment of this process passes as it is. */
export const stdioOptions: StdioClientTransportOptions = { command: 'node', env: process.env };
export const everyEntry = [
  root.LATEST_REVISION,
  createStdioClientTransport,
  createStreamableHttpClientTransport,
  SessionNotFoundError,
  createWebSocketClientTransport,
  createMemoryOAuthStorage,
  featuresOf,
  aggregate,
  joinRedisCluster,
];

async function main(): Promise<string> {
  const server = createServer({ name: 'installed', version: '1.0.0' });
  server.tool({
    name: 'weather',
    inputSchema: z.object({ city: z.string() }),
    outputSchema: z.object({ temperature: z.number() }),
    handler: ({ city }) => interval(1).pipe(take(1), map(() => ({ structuredContent: { temperature: city.length } }))),
  });
  server.tool({
    name: 'wrong',
    outputSchema: z.object({ temperature: z.number() }),
    // @ts-expect-error: the outputSchema makes temperature a number
    handler: () => ({ structuredContent: { temperature: 'warm' } }),
  });
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(serverSide);
  const client = await connect(clientSide, { name: 'consumer', version: '1.0.0' });
  const result = await client.promises.callTool('weather', { city: 'Paris' });
  await client.close();
  server.close();
  return JSON.stringify(result.structuredContent);
}

main().then(
  (text) => console.log(text),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
`;

const COMPILER_OPTIONS = {
  target: 'ES2022',
  lib: ['ES2022'],
  module: 'commonjs',
  moduleResolution: 'node10',
  esModuleInterop: false,
  strict: true,
  skipLibCheck: false,
  outDir: 'out',
};

/**
 * Packs the package into `<tmp>/node_modules/rxmcp`, with links to this repository's copies of its
 * dependencies in its own node_modules, and of the consumer's own dependencies at the top.
 */
function install(tmp: string): void {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: ROOT, encoding: 'utf8' }),
  ) as Array<{ filename: string }>;
  const modules = join(tmp, 'node_modules');
  mkdirSync(modules, { recursive: true });
  execFileSync('tar', ['-xzf', join(tmp, packed[0]!.filename), '-C', tmp]);
  const rxmcp = join(modules, 'rxmcp');
  renameSync(join(tmp, 'package'), rxmcp);
  const manifest = JSON.parse(readFileSync(join(rxmcp, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const link = (into: string, name: string) => {
    mkdirSync(join(into, name, '..'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(into, name), 'dir');
  };
  for (const name of Object.keys(manifest.dependencies ?? {})) link(join(rxmcp, 'node_modules'), name);
  for (const name of OWN_DEPENDENCIES) link(modules, name);
}

/**
 * Declarations of other libraries that need `esModuleInterop` themselves: zod 4's locales and
 * pino's (its `thread-stream` import) default-import CommonJS modules. Such a project needs
 * `skipLibCheck` for them whatever rxmcp does; every other error, rxmcp's above all, fails.
 */
const OTHERS_NEEDING_INTEROP = /\/node_modules\/(zod\/v4\/locales|pino)\/[^(]+\(\d+,\d+\): error TS1259:/;

/** tsc's diagnostics, one per entry (a diagnostic's continuation lines start with spaces). */
const diagnostics = (output: string): string[] =>
  output
    .split(/\n(?=\S)/)
    .map((line) => line.trim())
    .filter(Boolean);

describe('the packed package in a CommonJS project without esModuleInterop', () => {
  let tmp: string;
  /** tsc's diagnostics but those of {@link OTHERS_NEEDING_INTEROP}. */
  let compiled: Promise<string[]>;

  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'rxmcp-types-'));
    install(tmp);
    const own = Object.fromEntries(OWN_DEPENDENCIES.map((name) => [name, '*']));
    writeFileSync(
      join(tmp, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'commonjs', dependencies: own }),
    );
    writeFileSync(join(tmp, 'main.ts'), MAIN);
    writeFileSync(
      join(tmp, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: COMPILER_OPTIONS, files: ['main.ts'] }, null, 2),
    );
    compiled = execFileAsync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: tmp, encoding: 'utf8' }).then(
      () => [],
      (error: { stdout?: string }) => diagnostics(error.stdout ?? String(error)),
    );
  }, 120_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('type-checks every declaration of rxmcp it loads, and the project’s own zod and rxjs with them', async () => {
    // One program that checks every declaration of every entry: about 10 s of CPU.
    expect((await compiled).filter((diagnostic) => !OTHERS_NEEDING_INTEROP.test(diagnostic))).toEqual([]);
  }, 120_000);

  it('runs: a tool typed by its outputSchema answers over memory, with the project’s zod and rxjs', async () => {
    // Emitted despite the other libraries' declarations (noEmitOnError is off).
    await compiled;
    const out = execFileSync(process.execPath, ['out/main.js'], { cwd: tmp, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ temperature: 5 });
  });
});
