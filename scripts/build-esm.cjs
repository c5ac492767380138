#!/usr/bin/env node
// Builds the ES module version of lib/ into dist/mjs/lib (one .mjs file per source file that the
// package's entries reach, imports kept as imports), for bundlers: the package's exports give it to them under the `module`
// condition, which esbuild, rollup, vite and webpack set and Node does not. Node keeps loading the
// CommonJS build (dist/lib, with the dist/esm facades for `import`): one module instance there,
// whichever way rxmcp is loaded. In a bundle, every `import` of a built-in stays an import (a
// bundle in ES module format cannot `require`) and zod is imported as ES modules, the same copy as
// the application's.
//
// The sources load a few modules on first use with `require`. Here each becomes:
// - an import, for rxmcp's own modules and the packages every user has (STATIC below): a bundler
//   then sees and bundles it;
// - a load through Node's createRequire at run time, for the optional peer dependencies (RUNTIME
//   below): a bundle builds without them, and loads them from node_modules when they are used.
// A `require` of anything else stops the build, so that each new one is decided here. Packages
// imported by name whose CommonJS requires built-ins as it loads (DEFERRED below: ws) are loaded
// at run time too, when first used.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const ROOT = path.resolve(__dirname, '..');
const LIB = path.join(ROOT, 'lib');
const DIST = path.join(ROOT, 'dist/mjs');
const OUT = path.join(DIST, 'lib');

/** The package's entries: dist/mjs/<name>.mjs over each. */
const ENTRIES = require('./package-entries.cjs');

/** Packages `require`d on first use that the ES module build imports. */
const STATIC = new Set(['jose', 'eventsource']);
/** Optional peer dependencies, loaded at run time from node_modules (not bundled). */
const RUNTIME = new Set(['@opentelemetry/api', 'ioredis']);
/**
 * Packages imported by name whose CommonJS requires Node's built-ins as it loads: bundled, they
 * would stop an ES module bundle at start, even one that never uses them (the root entry exports
 * the WebSocket transports). Here each imported class stands in for the package's until first used,
 * and the package is then loaded from node_modules at run time.
 */
const DEFERRED = new Set(['ws']);

// Where a package loaded at run time is looked for, without `import.meta` (which a bundle in
// CommonJS format would leave empty, with a warning to whoever bundles): beside the file of a
// CommonJS bundle, else beside the program Node runs (a bundle in ES module format is that
// program), then in the working directory.
const MODULE_FILE = [
  'const __moduleFiles = (() => {',
  '  const runtime = globalThis.process;',
  '  const main = runtime?.argv?.[1];',
  '  return [',
  "    typeof __filename === 'string' ? __filename : undefined,",
  "    typeof main === 'string' && main !== '' ? main : undefined,",
  "    typeof runtime?.cwd === 'function' ? `${runtime.cwd()}/[rxmcp]` : undefined,",
  '  ].filter((file) => file !== undefined);',
  '})();',
  'const __moduleFile = __moduleFiles[0];',
  'const __moduleDir = (() => {',
  "  if (typeof __dirname === 'string') return __dirname;",
  "  const file = __moduleFile ?? '';",
  "  return file.slice(0, Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\\\')));",
  '})();',
].join('\n');

const RUNTIME_REQUIRE = [
  '// A package that bundles leave out, loaded from node_modules when used.',
  'const __runtimeRequire = (id) => {',
  "  const nodeModule = globalThis.process?.getBuiltinModule?.('node:module');",
  "  let failure = Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });",
  '  if (nodeModule === undefined) throw failure;',
  '  for (const file of __moduleFiles) {',
  '    try {',
  '      return nodeModule.createRequire(file)(id);',
  '    } catch (error) {',
  "      if (error?.code !== 'MODULE_NOT_FOUND') throw error;",
  '      failure = error;',
  '    }',
  '  }',
  '  throw failure;',
  '};',
].join('\n');

const DEFERRED_IMPORT = [
  '// Each named export of package `id`, standing in for it (new, calls, properties, instanceof) until',
  '// first used, when the package is loaded.',
  'const __deferredImports = (id, names) => {',
  '  let loaded;',
  '  const load = () => {',
  '    try {',
  '      return (loaded ??= __runtimeRequire(id));',
  '    } catch (error) {',
  '      throw new Error(',
  '        `rxmcp needs the ${id} package here and cannot load it (a bundle leaves ${id} out: install it where the bundle runs): ${error.message}`,',
  '        { cause: error },',
  '      );',
  '    }',
  '  };',
  '  const stand = (name) => {',
  '    const real = () => load()[name];',
  '    return new Proxy(function () {}, {',
  '      construct: (_target, args) => Reflect.construct(real(), args),',
  '      apply: (_target, self, args) => Reflect.apply(real(), self, args),',
  '      get: (_target, key) => real()[key],',
  '      has: (_target, key) => key in real(),',
  '    });',
  '  };',
  '  return Object.fromEntries(names.map((name) => [name, stand(name)]));',
  '};',
].join('\n');

/**
 * The source files the package's entries reach, the first-use loads counted (the CLI, which Node
 * runs from the CommonJS build, is not among them).
 */
async function sourceFiles() {
  const graph = {
    name: 'rxmcp-module-graph',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
      build.onLoad({ filter: /\.ts$/ }, (args) => ({
        contents: esmSource(args.path, fs.readFileSync(args.path, 'utf8')),
        loader: 'ts',
      }));
    },
  };
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: Object.values(ENTRIES).map((source) => path.join(ROOT, `${source}.ts`)),
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'neutral',
    outdir: OUT,
    logLevel: 'silent',
    plugins: [graph],
  });
  return Object.keys(result.metafile.inputs)
    .map((input) => path.resolve(ROOT, input))
    .filter((file) => file.startsWith(`${LIB}${path.sep}`) && file.endsWith('.ts'));
}

/** Whether the match at `index` is in a line comment or a block comment's line. */
function inComment(text, index) {
  const lineStart = text.lastIndexOf('\n', index) + 1;
  const before = text.slice(lineStart, index);
  return before.includes('//') || /^\s*(\*|\/\*)/.test(before);
}

/** The source as the ES module build compiles it: `require` calls and CommonJS globals replaced. */
function esmSource(file, text) {
  // zod's namespace as a namespace import: a bundler then keeps only the parts used. A named import
  // of \`z\` makes it keep all of zod's exports, its 260 KB of locales among them.
  text = text.replace(/^import \{ z \} from 'zod';$/gm, "import * as z from 'zod';");
  const hoisted = [];
  let runtime = false;
  const deferred = [];
  text = text.replace(/^import \{([^}]+)\} from '([^']+)';$/gm, (match, names, id) => {
    if (!DEFERRED.has(id)) return match;
    runtime = true;
    const values = names
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '' && !name.startsWith('type '));
    if (values.some((name) => !/^[A-Za-z_$][\w$]*$/.test(name))) {
      throw new Error(`${path.relative(ROOT, file)}: cannot defer \`${match}\`: name each import as it is`);
    }
    deferred.push(`const { ${values.join(', ')} } = __deferredImports('${id}', ${JSON.stringify(values)});`);
    return '';
  });
  let out = text.replace(/\brequire\(\s*(['"])([^'"]+)\1\s*\)/g, (match, _quote, id, index) => {
    if (inComment(text, index)) return match;
    if (id.startsWith('.') || STATIC.has(id)) {
      const name = `__lazy${hoisted.length}`;
      hoisted.push(`import * as ${name} from '${id}';`);
      return name;
    }
    if (RUNTIME.has(id)) {
      runtime = true;
      return `__runtimeRequire('${id}')`;
    }
    throw new Error(
      `${path.relative(ROOT, file)}: require('${id}') has no ES module form: add it to STATIC or RUNTIME in scripts/build-esm.cjs`,
    );
  });
  const globals = [];
  // CommonJS's globals: this module's file is the bundle's or the program's (see MODULE_FILE).
  const globalsUsed = /\b__(filename|dirname)\b/.test(out);
  out = out.replace(/\b__filename\b/g, '__moduleFile').replace(/\b__dirname\b/g, '__moduleDir');
  if (globalsUsed || runtime) globals.push(MODULE_FILE);
  if (runtime) globals.push(RUNTIME_REQUIRE);
  if (deferred.length > 0) globals.push(DEFERRED_IMPORT, ...deferred);
  if (hoisted.length === 0 && globals.length === 0) return text;
  // Imports are hoisted whatever their place: put the new ones and the globals at the top.
  out = `${hoisted.join('\n')}\n${globals.join('\n')}\n${out}`;
  return out;
}

/** Each relative import, as the path of the .mjs file it is built to. */
function resolveRelative(importer, specifier) {
  const base = path.resolve(path.dirname(importer), specifier);
  if (fs.existsSync(`${base}.ts`)) return `${specifier}.mjs`;
  if (fs.existsSync(path.join(base, 'index.ts'))) return `${specifier}/index.mjs`;
  throw new Error(`${path.relative(ROOT, importer)}: cannot resolve ${specifier}`);
}

const perFile = {
  name: 'rxmcp-per-file-esm',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      if (args.path.startsWith('.')) return { path: resolveRelative(args.importer, args.path), external: true };
      return { path: args.path, external: true };
    });
    build.onLoad({ filter: /\.ts$/ }, (args) => ({
      contents: esmSource(args.path, fs.readFileSync(args.path, 'utf8')),
      loader: 'ts',
    }));
  },
};

/** Writes `text` to `file` unless it holds it already: a build with nothing new leaves dist/ as it is. */
function writeIfChanged(file, text) {
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function existingFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? existingFiles(file) : [file];
  });
}

function removeEmptyFolders(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) removeEmptyFolders(path.join(dir, entry.name));
  }
  if (fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
}

async function main() {
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: await sourceFiles(),
    outdir: OUT,
    outbase: LIB,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    // The maps point at the TypeScript sources, which ship in lib/.
    sourcemap: true,
    write: false,
    logLevel: 'warning',
    tsconfig: path.join(ROOT, 'tsconfig.build.json'),
    plugins: [perFile],
  });
  const written = new Set();
  for (const output of result.outputFiles) {
    writeIfChanged(output.path, output.text);
    written.add(output.path);
  }
  // Each entry: its named exports, and the whole API as the default export, as the dist/esm
  // facades give it (their declarations describe both).
  for (const [name, source] of Object.entries(ENTRIES)) {
    const file = path.join(DIST, `${name}.mjs`);
    const lines = [
      `export * from './${source}.mjs';`,
      `import * as api from './${source}.mjs';`,
      'export default api;',
      '',
    ];
    writeIfChanged(file, lines.join('\n'));
    written.add(file);
  }
  // What an earlier build wrote for a source since removed.
  for (const file of existingFiles(DIST)) if (!written.has(file)) fs.rmSync(file);
  removeEmptyFolders(DIST);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
