import { builtinModules } from 'node:module';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import type { BuildOptions, Plugin } from 'esbuild';

/** The repository root, against which bundle entries resolve. */
export const ROOT = resolve(__dirname, '../..');

const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** A bundle made for the browser, and what in it would not run there. */
export interface BrowserBundle {
  readonly code: string;
  /** Each import of a Node built-in, as `importer -> specifier` (none for a browser-safe graph). */
  readonly nodeImports: readonly string[];
  /** The files bundled from node_modules, as `package/path`. */
  readonly packageFiles: readonly string[];
}

/**
 * Bundles `entry` (a file, or source text resolved from the repository root) with esbuild for the
 * browser, as a web app's bundler would. A Node built-in (`node:http`, `fs`, ...) is not bundled
 * but noted, so that a test can name every offending import rather than stop at the first.
 */
export async function bundleForBrowser(
  entry: { readonly file: string } | { readonly source: string },
  options: Pick<BuildOptions, 'format' | 'globalName' | 'minify'> = {},
): Promise<BrowserBundle> {
  const nodeImports: string[] = [];
  const noteNodeBuiltins: Plugin = {
    name: 'note-node-builtins',
    setup(plugin) {
      plugin.onResolve({ filter: /^[a-z:_/]+$/ }, (args) => {
        if (!NODE_BUILTINS.has(args.path)) return undefined;
        nodeImports.push(`${args.importer.replace(`${ROOT}/`, '')} -> ${args.path}`);
        return { path: args.path, external: true };
      });
    },
  };
  const result = await build({
    ...('file' in entry
      ? { entryPoints: [entry.file] }
      : { stdin: { contents: entry.source, resolveDir: ROOT, loader: 'ts', sourcefile: 'entry.ts' } }),
    bundle: true,
    platform: 'browser',
    target: 'es2022',
    format: options.format ?? 'esm',
    ...(options.globalName ? { globalName: options.globalName } : {}),
    minify: options.minify ?? false,
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [noteNodeBuiltins],
  });
  const packageFiles = Object.keys(result.metafile.inputs)
    .filter((input) => input.includes('node_modules/'))
    .map((input) => input.slice(input.lastIndexOf('node_modules/') + 'node_modules/'.length));
  return { code: result.outputFiles[0]!.text, nodeImports, packageFiles };
}
