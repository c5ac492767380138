import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { answerToInitialize, assertBuilt, consumerProject, emptyFolder, ROOT, RXMCP_STDIO_SERVER } from './consumer';

// The stdio server of the esbuild and rollup checks, and the browser client, bundled by vite as an
// application's build does: vite runs in the consumer project as its own program (vite is an ES
// module package, which jest's module loader does not load), with `ssr` and every dependency bundled
// for Node, and as a web app's build (a script entry that keeps its exports) for the browser. Each build writes the ids of the modules it
// took, so that the checks can see which of rxmcp's builds and which zod went in.
const BUILD = `import { writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { build } from 'vite';

const [entry, outDir, target] = process.argv.slice(2);
const modules = [];
const node = target === 'node';
await build({
  configFile: false,
  logLevel: 'error',
  root: process.cwd(),
  ssr: node ? { noExternal: true, target: 'node' } : undefined,
  build: {
    ssr: node ? entry : undefined,
    outDir,
    emptyOutDir: true,
    minify: !node,
    rollupOptions: {
      external: node ? [...builtinModules, ...builtinModules.map((name) => 'node:' + name)] : [],
      input: node ? undefined : entry,
      preserveEntrySignatures: node ? undefined : 'exports-only',
      output: { entryFileNames: node ? 'server.mjs' : 'app.js', format: 'es' },
    },
  },
  plugins: [{ name: 'record-modules', moduleParsed: (info) => void modules.push(info.id) }],
});
writeFileSync(outDir + '/modules.json', JSON.stringify(modules));
`;

const APP = `import * as z from 'zod';
import { connect } from 'rxmcp/client';
import { createStreamableHttpClientTransport } from 'rxmcp/http-client';

const Args = z.object({ city: z.string() });
export async function weather(url, city) {
  const client = await connect(createStreamableHttpClientTransport({ url }), { name: 'web', version: '1.0.0' });
  return client.promises.callTool('weather', Args.parse({ city }));
}
`;

/** Runs the consumer's vite build; returns the ids of the modules it bundled. */
function viteBuild(project: string, entry: string, out: string, target: 'node' | 'browser'): string[] {
  const run = spawnSync(process.execPath, ['build.mjs', entry, out, target], { cwd: project, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`vite build failed (${String(run.status)}):\n${run.stderr}${run.stdout}`);
  return JSON.parse(readFileSync(join(out, 'modules.json'), 'utf8')) as string[];
}

function consumerWithVite(files: Record<string, string>): string {
  const project = consumerProject({ ...files, 'build.mjs': BUILD });
  symlinkSync(join(ROOT, 'node_modules', 'vite'), join(project, 'node_modules', 'vite'), 'dir');
  return project;
}

describe('a stdio server bundled for Node with vite', () => {
  let project: string;
  let out: string;
  let modules: string[];

  beforeAll(() => {
    assertBuilt();
    project = consumerWithVite({ 'server.mjs': RXMCP_STDIO_SERVER });
    out = emptyFolder();
    modules = viteBuild(project, 'server.mjs', out, 'node');
  }, 90_000);
  afterAll(() => {
    rmSync(project, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  it('starts where there is no node_modules and answers initialize', async () => {
    const answer = await answerToInitialize(join(out, 'server.mjs'));
    expect(answer.result?.serverInfo?.name).toBe('bundled');
  });

  it("takes rxmcp's ES module build and zod's ES modules, and no CommonJS copy of either", () => {
    expect(modules.filter((id) => id.includes('/dist/mjs/')).length).toBeGreaterThan(50);
    expect(modules.filter((id) => id.includes('/dist/lib/'))).toEqual([]);
    expect(modules.filter((id) => /node_modules\/zod\/.*\.cjs$/.test(id))).toEqual([]);
  });
});

describe('the browser client bundled by vite as an app is', () => {
  let project: string;
  let out: string;
  let modules: string[];

  beforeAll(() => {
    assertBuilt();
    project = consumerWithVite({ 'app.mjs': APP });
    out = emptyFolder();
    modules = viteBuild(project, 'app.mjs', out, 'browser');
  }, 90_000);
  afterAll(() => {
    rmSync(project, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  it('holds one copy of zod, as ES modules, and none of Node', () => {
    const zod = modules.filter((id) => /node_modules\/zod\//.test(id));
    expect(zod.length).toBeGreaterThan(0);
    expect(zod.filter((id) => id.endsWith('.cjs'))).toEqual([]);
    expect(modules.filter((id) => id.includes('/dist/lib/'))).toEqual([]);
    expect(modules.filter((id) => id.startsWith('node:') || id.includes('__vite-browser-external'))).toEqual([]);
  });

  it('weighs less than the bound of the esbuild browser check (400 KB minified)', () => {
    expect(statSync(join(out, 'app.js')).size).toBeLessThan(400_000);
  });
});
