import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { parseCommandLine, renderProgress, renderResult, UsageError } from '../../examples/conformance/mcp-client';
import { startProgram } from '../support/readme-examples';

// The example command-line client, built (npm test builds first), against the example server over
// Streamable HTTP and over stdio. Its stdout is a pipe here, so progress comes as plain lines.
const ROOT = resolve(__dirname, '../..');
const CLIENT = resolve(__dirname, '../../dist/examples/conformance/mcp-client.js');
const SERVER = resolve(__dirname, '../../dist/examples/conformance/everything-server.js');

const children = new Set<ChildProcess>();

const start = (file: string, args: string[]) => startProgram(file, args, {}, children);

async function runClient(args: string[]) {
  const run = start(CLIENT, args);
  const code = await run.exited;
  return { code, ...run.output() };
}

let server: ReturnType<typeof start>;
let url: string;

beforeAll(async () => {
  server = start(SERVER, ['--http', '0']);
  url = await new Promise<string>((done, fail) => {
    server.child.stdout!.on('data', () => {
      const found = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(server.output().stdout)?.[0];
      if (found) done(found);
    });
    void server.exited.then(() => fail(new Error(`the example server exited: ${server.output().stderr}`)));
  });
});

afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  await server.exited;
});

const COUNTDOWN = ['--call', 'countdown', '--args', '{"from":3,"intervalMs":20}'];
const PROGRESS_LINES = 'progress 1/3 2 to go\nprogress 2/3 1 to go\nprogress 3/3 0 to go\n';

describe('the example client (examples/conformance/mcp-client.ts)', () => {
  it('lists the tools of a Streamable HTTP server, and exits 0', async () => {
    const { code, stdout, stderr } = await runClient([url]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^connected to rxmcp-everything-server 0\.1\.0 \(2026-07-28\)\n\d+ tools:\n/);
    expect(stdout).toMatch(/^ {2}countdown +Counts down from/m);
    expect(stdout).toMatch(/^ {2}add +Adds two numbers\.$/m);
  });

  it('calls a tool over Streamable HTTP, printing a line per progress update when stdout is not a terminal', async () => {
    const { code, stdout, stderr } = await runClient([...COUNTDOWN, url]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain(`calling countdown {"from":3,"intervalMs":20}\n${PROGRESS_LINES}Counted down from 3\n`);
    expect(stdout).not.toContain('\r');
  });

  it('launches a stdio server given as a command, calls a tool with progress, and exits 0', async () => {
    const { code, stdout, stderr } = await runClient([...COUNTDOWN, process.execPath, SERVER]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^connected to rxmcp-everything-server 0\.1\.0 \(/);
    expect(stdout).toContain(`${PROGRESS_LINES}Counted down from 3\n`);
  }, 30_000);

  it('shows structured content, and exits 1 with one line when the tool answers with an error', async () => {
    const ok = await runClient(['--call', 'divide', '--args', '{"dividend":84,"divisor":2}', url]);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toContain('{"quotient":42}\n');
    const failed = await runClient(['--call', 'test_error_handling', url]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe('mcp-client: test_error_handling answered with an error\n');
  }, 30_000);

  it('explains a server that cannot be reached in one line, and exits 1', async () => {
    const holder = createServer();
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
    const { port } = holder.address() as AddressInfo;
    await new Promise((done) => holder.close(done));
    const { code, stdout, stderr } = await runClient([`http://127.0.0.1:${port}/mcp`]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(new RegExp(`^mcp-client: .*ECONNREFUSED 127\\.0\\.0\\.1:${port}\\n$`));
  });

  it('explains a usage mistake with the usage, and exits 2', async () => {
    const { code, stderr } = await runClient(['--call', 'add', '--args', '{not json}', url]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      "mcp-client: --args needs a JSON object, got '{not json}'\n" +
        "usage: mcp-client [--call <tool> [--args '<json object>']] <server URL | command [args...]>\n",
    );
  });
});

/**
 * The client's command lines in its guide (docs/client.md), as argument lists: the words after the
 * script, split as a shell would (single quotes only), without a trailing comment.
 */
function documentedRuns(): string[][] {
  const readme = readFileSync(resolve(ROOT, 'docs', 'client.md'), 'utf8');
  return [...readme.matchAll(/^node dist\/examples\/conformance\/mcp-client\.js (.*?)(?:\s+#.*)?$/gm)].map((match) =>
    [...match[1]!.matchAll(/'([^']*)'|(\S+)/g)].map((word) => word[1] ?? word[2]!),
  );
}

describe('the example client, as its guide runs it', () => {
  it('runs each documented command line against the example server: exit 0, nothing on stderr', async () => {
    const runs = documentedRuns();
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const args of runs) {
      // The guide's server is `npm start` on port 3000; here it is on a free port, and a stdio
      // server's command runs from the package's folder.
      const local = args.map((word) =>
        word === 'http://127.0.0.1:3000/mcp' ? url : word.startsWith('dist/') ? resolve(ROOT, word) : word,
      );
      const { code, stdout, stderr } = await runClient(local);
      expect({ args, code, stderr }).toEqual({ args, code: 0, stderr: '' });
      expect(stdout).toMatch(/^connected to rxmcp-everything-server/);
      if (args.includes('countdown')) expect(stdout).toContain('progress 5/5 0 to go\nCounted down from 5\n');
      if (args.includes('add')) expect(stdout).toMatch(/\n42\n$/);
    }
  }, 60_000);
});

describe('the example client, in parts', () => {
  it('reads a URL with options around it, and a command with everything after it', () => {
    expect(parseCommandLine(['http://h/mcp', '--call', 'add', '--args', '{"a":1}'])).toEqual({
      target: { url: 'http://h/mcp' },
      call: { name: 'add', args: { a: 1 } },
    });
    expect(parseCommandLine(['--call', 'echo', 'node', 'server.js', '--call', 'x'])).toEqual({
      target: { command: 'node', args: ['server.js', '--call', 'x'] },
      call: { name: 'echo', args: {} },
    });
    expect(() => parseCommandLine([])).toThrow(UsageError);
    expect(() => parseCommandLine(['--args', '[1]', 'http://h/mcp'])).toThrow(/JSON object/);
    expect(() => parseCommandLine(['--args', '{}', 'http://h/mcp'])).toThrow(/--args goes with --call/);
  });

  it('draws progress as a bar redrawn in place on a terminal, and as a plain line otherwise', () => {
    const event = { type: 'progress', progress: 1, total: 4, message: '3 to go' } as const;
    expect(renderProgress(event, true, 80)).toBe(`\r\x1b[K[${'#'.repeat(10)}${'-'.repeat(30)}]  25% 1/4 3 to go`);
    expect(renderProgress({ ...event, progress: 4 }, true, 80)).toMatch(/^\r\x1b\[K\[#{40}\] 100% 4\/4 3 to go$/);
    expect(renderProgress(event, false)).toBe('progress 1/4 3 to go\n');
    expect(renderProgress({ type: 'progress', progress: 7 }, false)).toBe('progress 7\n');
    expect(renderProgress(event, true, 30).length).toBeLessThanOrEqual('\r\x1b[K'.length + 29);
  });

  it('prints text content as text and other content as JSON', () => {
    const image = { type: 'image', data: 'AAAA', mimeType: 'image/png' } as const;
    expect(renderResult({ content: [{ type: 'text', text: 'hi' }, image] })).toBe(
      `hi\n[image] ${JSON.stringify(image)}\n`,
    );
  });
});
