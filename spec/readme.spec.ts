import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

// The README's TypeScript examples must compile against the library as it is: each block is
// type-checked as its own module, with `rxmcp` resolved to lib/.
const ROOT = resolve(__dirname, '..');

function examples(): Array<{ name: string; code: string }> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match, i) => ({
    name: `readme-example-${i + 1}.ts`,
    code: match[1]!,
  }));
}

function diagnose(files: ReadonlyArray<{ name: string; code: string }>): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    types: ['node'],
    baseUrl: ROOT,
    paths: { rxmcp: ['lib/index.ts'] },
  };
  const virtual = new Map(files.map((file) => [join(ROOT, '.readme', file.name), file.code]));
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
        `${name.slice(ROOT.length + 1)}:${d.start === undefined ? '' : d.file!.getLineAndCharacterOfPosition(d.start).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    ),
  );
}

describe('the README', () => {
  it('has TypeScript examples', () => {
    expect(examples().length).toBeGreaterThanOrEqual(2);
  });

  it('has TypeScript examples that compile against the library', () => {
    expect(diagnose(examples())).toEqual([]);
  }, 60_000);

  it('would report an example that no longer compiles', () => {
    const broken = [
      {
        name: 'broken.ts',
        code: "import { createServer } from 'rxmcp';\ncreateServer({ name: 'x' }).tool({ nme: 'typo' });\n",
      },
    ];
    expect(diagnose(broken).join('\n')).toMatch(/broken\.ts:2: .*'nme'/);
  }, 60_000);
});
