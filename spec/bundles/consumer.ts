import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Metafile } from 'esbuild';

/** The repository root: the package, built (npm test builds first). */
export const ROOT = resolve(__dirname, '../..');

/** Fails with what to do when the package is not built. */
export function assertBuilt(): void {
  for (const file of ['dist/lib/index.js', 'dist/mjs/index.mjs']) {
    if (!existsSync(join(ROOT, file))) throw new Error(`${file} is missing: run npm run build first`);
  }
}

/**
 * A fresh ES module project whose node_modules holds rxmcp (this repository, through its package
 * exports as an install gives them) and the packages named, linked from this repository's
 * node_modules: the files it is given sit at its root. Returns its folder.
 */
export function consumerProject(
  files: Readonly<Record<string, string>>,
  packages: readonly string[] = ['zod'],
): string {
  const dir = mkdtempSync(join(tmpdir(), 'rxmcp-bundle-'));
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@modelcontextprotocol'), { recursive: true });
  symlinkSync(ROOT, join(modules, 'rxmcp'), 'dir');
  for (const name of packages) symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** An empty folder beside no node_modules: a bundle run there has only what it holds. */
export function emptyFolder(): string {
  return mkdtempSync(join(tmpdir(), 'rxmcp-bundled-'));
}

/** A stdio server written against rxmcp as the README shows: one tool, a zod schema. */
export const RXMCP_STDIO_SERVER = `import { z } from 'zod';
import { createServer, textResult } from 'rxmcp/server';
import { createStdioServerTransport } from 'rxmcp/stdio';

const server = createServer({ name: 'bundled', version: '1.0.0' });
server.tool({
  name: 'add',
  description: 'Adds two numbers.',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => textResult(String(a + b)),
});
server.connect(createStdioServerTransport());
`;

/** The same server on the official SDK (1.x), as its README shows. */
export const SDK_STDIO_SERVER = `import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'bundled', version: '1.0.0' });
server.registerTool(
  'add',
  { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
);
await server.connect(new StdioServerTransport());
`;

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bundle-check', version: '1.0.0' } },
};

/**
 * Runs `file` with Node in its own folder, sends `initialize` as one line on its stdin and resolves
 * with the first line it writes to stdout, parsed; rejects with its stderr if it exits or says
 * nothing within 10 s.
 */
export function answerToInitialize(file: string): Promise<{ result?: { serverInfo?: { name?: string } } }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [file], { cwd: resolve(file, '..'), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill();
      reject(new Error(`${why}; stderr:\n${stderr.slice(0, 2000)}`));
    };
    const timer = setTimeout(() => fail('no answer to initialize within 10 s'), 10_000);
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const end = stdout.indexOf('\n');
      if (end < 0) return;
      clearTimeout(timer);
      child.kill();
      try {
        resolvePromise(JSON.parse(stdout.slice(0, end)) as { result?: { serverInfo?: { name?: string } } });
      } catch (error) {
        reject(error as Error);
      }
    });
    child.on('exit', (code) => {
      if (!stdout.includes('\n')) fail(`exited with code ${String(code)} before answering`);
    });
    child.stdin.end(`${JSON.stringify(INITIALIZE)}\n`);
  });
}

/** What a bundle holds of zod: its files (those with code in the output), the copies they come from, and those in CommonJS. */
export interface ZodInBundle {
  readonly files: readonly string[];
  /** Each folder of a zod package the bundle took files from. */
  readonly copies: readonly string[];
  readonly commonJsFiles: readonly string[];
  /** Bytes of the output that are zod's. */
  readonly bytes: number;
}

/** zod in an esbuild bundle, from its metafile. */
export function zodIn(metafile: Metafile): ZodInBundle {
  const inputs = Object.values(metafile.outputs).flatMap((output) => Object.entries(output.inputs));
  const zod = inputs.filter(([file, input]) => /(^|\/)node_modules\/zod\//.test(file) && input.bytesInOutput > 0);
  const files = zod.map(([file]) => file);
  return {
    files,
    copies: [
      ...new Set(files.map((file) => file.slice(0, file.lastIndexOf('node_modules/zod/') + 'node_modules/zod'.length))),
    ],
    commonJsFiles: files.filter((file) => file.endsWith('.cjs')),
    bytes: zod.reduce((sum, [, input]) => sum + input.bytesInOutput, 0),
  };
}
