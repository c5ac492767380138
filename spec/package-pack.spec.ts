import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';

// A fresh clone packs into a package that installs and runs (newcomer issue: `npm pack` on a clone,
// as the README's Install section says, shipped no dist/, and `rxmcp: not found`). The clone is
// the repository as git would give it: every file it tracks or would track (ignored ones, dist/
// among them, left out), as they are in the work tree. Its node_modules is this repository's, so
// nothing is downloaded. `npm pack` there runs the prepare script, which builds.
const ROOT = resolve(__dirname, '..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Copies into `dest` the files a clone would hold, as the work tree has them. */
function cloneInto(dest: string): void {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  for (const file of listed.split('\0')) {
    // A file deleted in the work tree but not yet in the index is not there to copy; a link (a
    // node_modules linked in by hand) is not part of a clone.
    if (file === '' || !existsSync(join(ROOT, file)) || !lstatSync(join(ROOT, file)).isFile()) continue;
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(dest, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dest, 'node_modules'), 'dir');
}

/**
 * Installs the tarball into `project` as npm does, without the network: unpacked as
 * node_modules/rxmcp, its dependencies linked from this repository, its bin linked into
 * node_modules/.bin and made executable.
 */
function installTarball(tarball: string, project: string): void {
  const modules = join(project, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', project]);
  renameSync(join(project, 'package'), join(modules, 'rxmcp'));
  const manifest = JSON.parse(readFileSync(join(modules, 'rxmcp/package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    bin: Record<string, string>;
  };
  for (const dependency of Object.keys(manifest.dependencies)) {
    mkdirSync(dirname(join(modules, dependency)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', dependency), join(modules, dependency), 'dir');
  }
  for (const [name, target] of Object.entries(manifest.bin)) {
    symlinkSync(join('..', 'rxmcp', target), join(modules, '.bin', name));
    if (existsSync(join(modules, 'rxmcp', target))) chmodSync(join(modules, 'rxmcp', target), 0o755);
  }
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
}

const SERVER = `import { z } from 'zod';
import { createServer, textResult } from 'rxmcp/server';
import { createStdioServerTransport } from 'rxmcp/stdio';

const server = createServer({ name: 'packed', version: '1.0.0' });
server.tool({
  name: 'add',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => textResult(String(a + b)),
});
server.connect(createStdioServerTransport());
`;

const CLIENT = `import { connect } from 'rxmcp/client';
import { createStdioClientTransport } from 'rxmcp/stdio';

const client = await connect(createStdioClientTransport({ command: process.execPath, args: ['server.mjs'] }), {
  name: 'scratch',
  version: '1.0.0',
});
const result = await client.promises.callTool('add', { a: 2, b: 3 });
await client.close();
console.log(result.content[0].text);
`;

const CJS_CLIENT = `const { connect } = require('rxmcp/client');
const { createStdioClientTransport } = require('rxmcp/stdio');

connect(createStdioClientTransport({ command: process.execPath, args: ['server.mjs'] }), { name: 'cjs', version: '1.0.0' })
  .then(async (client) => {
    const tools = await client.promises.listTools();
    await client.close();
    console.log(tools.map((tool) => tool.name).join(' '));
  });
`;

describe('a fresh clone, packed and installed', () => {
  let tmp: string;
  let files: string[];
  let scratch: string;

  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'rxmcp-clone-'));
    const clone = join(tmp, 'clone');
    cloneInto(clone);
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', tmp], {
        cwd: clone,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    files = packed[0]!.files.map((file) => file.path);
    scratch = join(tmp, 'scratch');
    installTarball(join(tmp, packed[0]!.filename), scratch);
    writeFileSync(join(scratch, 'server.mjs'), SERVER);
    writeFileSync(join(scratch, 'client.mjs'), CLIENT);
    writeFileSync(join(scratch, 'client.cjs'), CJS_CLIENT);
    // The build is most of it: about 30 s in all.
  }, 120_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('ships the CommonJS build, the ES module entries, the ES module build and the CLI', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/lib/index.js',
        'dist/lib/index.d.ts',
        'dist/lib/cli/rxmcp.js',
        'dist/esm/index.mjs',
        'dist/esm/index.d.mts',
        'dist/mjs/index.mjs',
        'dist/mjs/lib/index.mjs',
      ]),
    );
    expect(files.filter((file) => file.startsWith('dist/examples/') || file.endsWith('.tsbuildinfo'))).toEqual([]);
  });

  it('gives a working rxmcp command', () => {
    const env = { ...process.env, PATH: `${join(scratch, 'node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}` };
    const out = execFileSync('rxmcp', ['--version'], { cwd: scratch, env, encoding: 'utf8' });
    expect(out.trim()).toBe(`rxmcp ${VERSION}`);
  });

  it('runs a stdio server and a client that calls its tool, from ES modules and from CommonJS', () => {
    const run = (file: string) =>
      execFileSync(process.execPath, [file], { cwd: scratch, encoding: 'utf8', timeout: 20_000 }).trim();
    expect(run('client.mjs')).toBe('5');
    expect(run('client.cjs')).toBe('add');
  });
});
