import { rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import commonjs from '@rollup/plugin-commonjs';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { rollup } from 'rollup';
import type { RollupLog } from 'rollup';
import { answerToInitialize, assertBuilt, consumerProject, emptyFolder, RXMCP_STDIO_SERVER } from './consumer';

// The stdio server of the esbuild check, bundled by rollup as a Node application is (node-resolve
// with the `node` condition, commonjs for the CommonJS packages, Node's built-ins left as imports),
// run from a folder without node_modules.
const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** What rollup says that is not about the code's health: zod's own annotations and cycles. */
const HARMLESS = new Set(['CIRCULAR_DEPENDENCY', 'INVALID_ANNOTATION', 'THIS_IS_UNDEFINED']);

describe('a stdio server bundled for Node with rollup', () => {
  let project: string;
  let out: string;
  let modules: string[];
  const logs: RollupLog[] = [];

  beforeAll(async () => {
    assertBuilt();
    project = consumerProject({ 'server.mjs': RXMCP_STDIO_SERVER });
    out = emptyFolder();
    const bundle = await rollup({
      input: join(project, 'server.mjs'),
      external: (id) => BUILTINS.has(id),
      plugins: [nodeResolve({ exportConditions: ['node'], preferBuiltins: true }), commonjs()],
      onLog: (_level, log) => void logs.push(log),
    });
    modules = bundle.cache?.modules.map((module) => module.id) ?? [];
    await bundle.write({ file: join(out, 'server.mjs'), format: 'es' });
    await bundle.close();
  }, 60_000);
  afterAll(() => {
    rmSync(project, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  it('starts where there is no node_modules and answers initialize', async () => {
    const answer = await answerToInitialize(join(out, 'server.mjs'));
    expect(answer.result?.serverInfo?.name).toBe('bundled');
  });

  it("takes rxmcp's ES module build and zod's ES modules, with nothing left unresolved", () => {
    expect(modules.filter((id) => id.includes('/dist/mjs/')).length).toBeGreaterThan(50);
    expect(modules.filter((id) => id.includes('/dist/lib/'))).toEqual([]);
    expect(modules.filter((id) => /node_modules\/zod\/.*\.cjs$/.test(id))).toEqual([]);
    expect(logs.filter((log) => !HARMLESS.has(log.code ?? '')).map((log) => `${log.code}: ${log.message}`)).toEqual([]);
  });
});
