import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

// The packed package (npm test builds first), installed without network into fresh ESM and
// CommonJS projects, type-checks under the strictest settings a consumer may use and runs.
const ROOT = resolve(__dirname, '..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const ENTRIES = [
  'rxmcp',
  'rxmcp/server',
  'rxmcp/client',
  'rxmcp/stdio',
  'rxmcp/http',
  'rxmcp/http-client',
  'rxmcp/websocket',
  'rxmcp/auth',
  'rxmcp/core',
  'rxmcp/proxy',
  'rxmcp/cluster',
];
const execFileAsync = promisify(execFile);

/** Imports from every entry; the connect calls pass each transport where `Transport` is expected. */
const imports = (rootImport: string) => `${rootImport}
import { createInMemoryPair, createServer, textResult } from 'rxmcp/server';
import type { McpServer, ServerOptions } from 'rxmcp/server';
import { connect } from 'rxmcp/client';
import type { ClientOptions, McpClient } from 'rxmcp/client';
import { createStdioServerTransport } from 'rxmcp/stdio';
import { createStreamableHttpClientTransport } from 'rxmcp/http';
import { SessionNotFoundError } from 'rxmcp/http-client';
import { createWebSocketClientTransport } from 'rxmcp/websocket';
import { createMemoryOAuthStorage } from 'rxmcp/auth';
import { createConnection, featuresOf } from 'rxmcp/core';
import { aggregate } from 'rxmcp/proxy';
import type { UpstreamConfig } from 'rxmcp/proxy';
import { joinRedisCluster } from 'rxmcp/cluster';
import { z } from 'zod';

const serverInfo: ServerOptions = { name: 'installed', version: '1.0.0' };
const clientInfo: ClientOptions = { name: 'consumer', version: '1.0.0' };

/** Type-checked, never called: every transport is a Transport under exactOptionalPropertyTypes. */
export function everyTransport(server: McpServer): Array<Promise<McpClient>> {
  server.connect(createStdioServerTransport());
  void createMemoryOAuthStorage();
  void createConnection;
  void joinRedisCluster;
  const upstream: UpstreamConfig = {
    upstream: { connect: () => connect(createStreamableHttpClientTransport({ url: 'http://127.0.0.1:1/mcp' }), clientInfo) },
    tools: { exclude: 'admin_*' },
  };
  void aggregate({ upstream });
  return [
    connect(createStreamableHttpClientTransport({ url: 'http://127.0.0.1:1/mcp' }), clientInfo),
    connect(createWebSocketClientTransport({ url: 'ws://127.0.0.1:1/mcp' }), clientInfo),
  ];
}

export async function addOverMemory(): Promise<string> {
  const server = createServer(serverInfo);
  server.tool({
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    handler: ({ a, b }) => textResult(String(a + b)),
  });
  const [clientSide, serverSide] = createInMemoryPair();
  server.connect(serverSide);
  const client = await connect(clientSide, clientInfo);
  const result = await client.promises.callTool('add', { a: 2, b: 3 });
  await client.close();
  server.close();
  const [first] = result.content;
  return first?.type === 'text' ? first.text : 'no text';
}
`;

const ESM_MAIN = `${imports("import rxmcp, { LATEST_REVISION } from 'rxmcp';")}
console.log([await addOverMemory(), rxmcp.LATEST_REVISION === LATEST_REVISION, featuresOf(LATEST_REVISION) !== undefined].join(' '));
`;

// CommonJS: the module object by `import = require`, and named imports.
const CJS_MAIN = `${imports("import rxmcp = require('rxmcp');\nimport { LATEST_REVISION } from 'rxmcp';")}
void addOverMemory().then((text) =>
  console.log([text, rxmcp.LATEST_REVISION === LATEST_REVISION, featuresOf(LATEST_REVISION) !== undefined].join(' ')),
);
`;

const STRICTEST = {
  target: 'ES2022',
  lib: ['ES2022'],
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  outDir: 'out',
};

interface Project {
  readonly dir: string;
  /** tsconfig file name → compilerOptions beyond the strictest common ones. */
  readonly configs: Readonly<Record<string, Record<string, unknown>>>;
}

function writeProject(dir: string, type: 'module' | 'commonjs', main: string, configs: Project['configs']): Project {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${type}`, private: true, type }));
  writeFileSync(join(dir, 'main.ts'), main);
  for (const [file, options] of Object.entries(configs)) {
    const config = { compilerOptions: { ...STRICTEST, ...options }, files: ['main.ts'] };
    writeFileSync(join(dir, file), JSON.stringify(config, null, 2));
  }
  return { dir, configs };
}

/**
 * Packs the package and unpacks it as `<tmp>/node_modules/rxmcp`, beside links to this repository's
 * copies of its dependencies: what an install gives, without the network. npm test has built
 * dist/: the prepare script is not run again while other suites read it (spec/package-pack.spec.ts
 * packs a fresh clone, prepare and all).
 */
function install(tmp: string) {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], {
      cwd: ROOT,
      encoding: 'utf8',
    }),
  ) as Array<{ filename: string }>;
  const modules = join(tmp, 'node_modules');
  mkdirSync(join(modules, '@types'), { recursive: true });
  execFileSync('tar', ['-xzf', join(tmp, packed[0]!.filename), '-C', tmp]);
  renameSync(join(tmp, 'package'), join(modules, 'rxmcp'));
  const manifest = JSON.parse(readFileSync(join(modules, 'rxmcp/package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const dependency of Object.keys(manifest.dependencies)) {
    symlinkSync(join(ROOT, 'node_modules', dependency), join(modules, dependency), 'dir');
  }
  return manifest;
}

const tsc = (project: Project, config: string) =>
  execFileAsync(process.execPath, [TSC, '-p', config], { cwd: project.dir, encoding: 'utf8' }).then(
    () => '',
    (error: { stdout?: string }) => `${config}: ${error.stdout ?? String(error)}`,
  );

describe('the packed package, installed in fresh projects', () => {
  let tmp: string;
  let manifest: { dependencies: Record<string, string> };
  let esm: Project;
  let cjs: Project;

  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'rxmcp-install-'));
    manifest = install(tmp);
    esm = writeProject(join(tmp, 'esm'), 'module', ESM_MAIN, {
      'tsconfig.json': { module: 'nodenext', moduleResolution: 'nodenext' },
      'tsconfig.bundler.json': { module: 'esnext', moduleResolution: 'bundler', noEmit: true },
    });
    cjs = writeProject(join(tmp, 'cjs'), 'commonjs', CJS_MAIN, {
      'tsconfig.json': { module: 'node16', moduleResolution: 'node16' },
    });
  }, 120_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('brings the types its declarations need, with no extra install', () => {
    expect(Object.keys(manifest.dependencies)).toContain('@types/ws');
  });

  it('type-checks every entry under strict, exactOptionalPropertyTypes and no skipLibCheck', async () => {
    const failures = await Promise.all([
      ...Object.keys(esm.configs).map((config) => tsc(esm, config)),
      ...Object.keys(cjs.configs).map((config) => tsc(cjs, config)),
    ]);
    expect(failures.filter(Boolean)).toEqual([]);
    expect(ENTRIES.every((entry) => ESM_MAIN.includes(`from '${entry}'`))).toBe(true);
    // Three programs that check every declaration they load: about 15 s of CPU each.
  }, 240_000);

  it.each(['esm', 'cjs'] as const)('runs in the %s project: a client calls a tool in memory', (kind) => {
    const project = kind === 'esm' ? esm : cjs;
    const out = execFileSync(process.execPath, ['out/main.js'], { cwd: project.dir, encoding: 'utf8' });
    expect(out.trim()).toBe('5 true true');
  });

  it('ships source maps whose sources are in the package', () => {
    const map = JSON.parse(readFileSync(join(tmp, 'node_modules/rxmcp/dist/lib/index.js.map'), 'utf8')) as {
      sources: string[];
    };
    const source = resolve(tmp, 'node_modules/rxmcp/dist/lib', map.sources[0]!);
    expect(readFileSync(source, 'utf8')).toContain('export');
  });
});
