import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { diagnoseExamples } from './support/example-compile';
import { parseExamples, runExamples } from './support/readme-examples';
import type { Example } from './support/readme-examples';

// The README's TypeScript examples must compile against the library as it is (each block is
// type-checked as its own module, with `rxmcp` resolved to lib/) and run against the built package
// (npm test builds first): servers listen, clients and programs exit 0 with nothing on stderr and
// print what the README says they print. spec/support/readme-examples.ts describes the markers.
const ROOT = resolve(__dirname, '..');

// The README has no fragment: its server and client both run. The guides in docs/ are checked
// the same way by spec/docs.spec.ts, which names their fragments.
const readme = () => parseExamples(readFileSync(join(ROOT, 'README.md'), 'utf8'));

const diagnose = (files: ReadonlyArray<{ name: string; code: string }>) => diagnoseExamples(ROOT, files);

const children = new Set<ChildProcess>();
let dir: string;

beforeAll(() => {
  // Inside the package (and ignored by git), so that `import ... from 'rxmcp'` in a compiled
  // example resolves to the built package through its own exports, and rxjs and zod resolve too.
  mkdirSync(join(ROOT, '.cache'), { recursive: true });
  dir = mkdtempSync(join(ROOT, '.cache', 'readme-'));
});

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const program = (code: string, role: Example['role'] = 'program', output?: string): Example => ({
  name: `probe-${Math.random().toString(36).slice(2)}`,
  line: 1,
  role,
  code,
  ...(output === undefined ? {} : { output }),
});

describe('the README', () => {
  it('has a server example, a client example run against it, and no fragment', () => {
    const examples = readme();
    expect(examples.filter((e) => e.role === 'server').length).toBeGreaterThanOrEqual(1);
    expect(examples.filter((e) => e.role === 'client').length).toBeGreaterThanOrEqual(1);
    expect(examples.filter((e) => e.role === 'fragment').map((e) => e.fragment)).toEqual([]);
  });

  it('has TypeScript examples that compile against the library', () => {
    expect(diagnose(readme())).toEqual([]);
  }, 60_000);

  it('has examples that run against the built package: servers listen, the client shows progress and exits 0', async () => {
    expect(existsSync(join(ROOT, 'dist/esm/index.mjs'))).toBe(true);
    const examples = readme();
    const client = examples.find((e) => e.role === 'client' && e.code.includes("'countdown'"));
    // The countdown's progress and result, the tool list and the Promise forms' answers.
    expect(client?.output).toMatch(/^1\/3: 2 to go\n2\/3: 1 to go\n3\/3: 0 to go\n.*lift-off/m);
    expect(client?.output).toContain("[ 'add', 'countdown' ]");
    expect(await runExamples(examples, { dir, children })).toEqual([]);
  }, 60_000);

  it('would report an example that no longer compiles', () => {
    const broken = [
      {
        name: 'broken',
        code: "import { createServer } from 'rxmcp';\ncreateServer({ name: 'x' }).tool({ nme: 'typo' });\n",
      },
    ];
    expect(diagnose(broken).join('\n')).toMatch(/broken\.ts:2: .*'nme'/);
  }, 60_000);
});

describe('the README example runner', () => {
  it('runs an unmarked block and reports its failure, its stderr and a run that does not end', async () => {
    const problems = await runExamples(
      [
        program("throw new Error('boom');\n"),
        program("console.error('careful');\n"),
        program('setInterval(() => undefined, 1000);\n'),
      ],
      { dir, children, timeoutMs: 3_000 },
    );
    expect(problems).toEqual([
      expect.stringMatching(/^line 1 \(program\): exit code 1$/),
      expect.stringMatching(/^line 1 \(program\): stderr: [\s\S]*Error: boom/),
      'line 1 (program): stderr: careful',
      'line 1 (program): still running at the timeout',
    ]);
  });

  it('reports output that differs from the output block', async () => {
    const problems = await runExamples([program("console.log('1/3');\n", 'program', '1/3\n2/3\n')], { dir, children });
    expect(problems).toEqual(['line 1 (program): printed\n1/3\ninstead of\n1/3\n2/3\n']);
  });

  it('gives a client the URL of the server block above it, and reports a server that does not listen', async () => {
    const server =
      "import { createServer } from 'node:http';\n" +
      "createServer((_req, res) => res.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');\n";
    const client = 'const res = await fetch(process.argv[2]);\nconsole.log(res.status, await res.text());\n';
    expect(
      await runExamples([program(server, 'server'), program(client, 'client', '200 ok\n')], { dir, children }),
    ).toEqual([]);
    expect(await runExamples([program('process.exit(0);\n', 'server')], { dir, children })).toEqual([
      'line 1 (server): did not listen on PORT (exit code 0)',
    ]);
  });

  it('reads markers, and refuses one it does not know', () => {
    const markdown = [
      '```ts',
      'run();',
      '```',
      '<!-- example: output -->',
      '```text',
      'ran',
      '```',
      '<!-- example: fragment partial -->',
      '',
      '```ts',
      'part();',
      '```',
      '```sh',
      'npm test',
      '```',
    ].join('\n');
    expect(parseExamples(markdown)).toEqual([
      { name: 'readme-example-1', line: 1, role: 'program', code: 'run();\n', output: 'ran\n' },
      { name: 'readme-example-2', line: 10, role: 'fragment', fragment: 'partial', code: 'part();\n' },
    ]);
    expect(() => parseExamples('<!-- example: fragmnet -->\n```ts\nx;\n```\n')).toThrow(/unknown example marker/);
    expect(() => parseExamples('<!-- example: server -->\nprose\n```ts\nx;\n```\n')).toThrow(/not followed/);
  });
});
