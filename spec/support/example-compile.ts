import { join } from 'node:path';
import ts from 'typescript';

/**
 * Type-checks Markdown examples as modules of their own, all in one program, with `rxmcp` and
 * `rxmcp/*` resolved to the library's sources. Returns one line per diagnostic, `<name>.ts:<line>:
 * <message>`, empty when every example compiles.
 */
export function diagnoseExamples(root: string, files: ReadonlyArray<{ name: string; code: string }>): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    types: ['node'],
    baseUrl: root,
    paths: { rxmcp: ['lib/index.ts'], 'rxmcp/*': ['lib/entries/*.ts'] },
  };
  const virtual = new Map(files.map((file) => [join(root, '.readme', `${file.name}.ts`), file.code]));
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (name) => virtual.get(name) ?? readFile(name);
  host.fileExists = (name) => virtual.has(name) || fileExists(name);
  const program = ts.createProgram([...virtual.keys()], options, host);
  return [...virtual.keys()].flatMap((name) =>
    [
      ...program.getSyntacticDiagnostics(program.getSourceFile(name)),
      ...program.getSemanticDiagnostics(program.getSourceFile(name)),
    ].map(
      (d) =>
        `${name.slice(root.length + 1)}:${d.start === undefined ? '' : d.file!.getLineAndCharacterOfPosition(d.start).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    ),
  );
}
