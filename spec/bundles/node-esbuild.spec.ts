import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { BuildOptions, Metafile } from 'esbuild';
import {
  answerToInitialize,
  assertBuilt,
  consumerProject,
  emptyFolder,
  RXMCP_STDIO_SERVER,
  SDK_STDIO_SERVER,
  zodIn,
} from './consumer';

// A stdio server bundled for Node with esbuild, as `esbuild server.mjs --bundle --platform=node
// --format=esm --minify` makes it, run from a folder without node_modules: it must start and
// answer, hold zod once, and weigh no more than the same server on the official SDK bundled the
// same way (newcomer issue: it crashed with `Dynamic require of "node:fs" is not supported`, at
// 1.47 MB against the SDK's 0.73 MB).

/** The README's server, taking everything from the root entry (which exports the WebSocket transports too). */
const ROOT_ENTRY_SERVER = `import { z } from 'zod';
import { createServer, createStdioServerTransport, textResult } from 'rxmcp';

const server = createServer({ name: 'bundled', version: '1.0.0' });
server.tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => textResult(text) });
server.connect(createStdioServerTransport());
`;

interface Bundle {
  readonly file: string;
  readonly bytes: number;
  readonly code: string;
  readonly metafile: Metafile;
  readonly warnings: readonly string[];
}

describe('a stdio server bundled for Node with esbuild', () => {
  let project: string;
  let out: string;

  const bundle = async (entry: string, options: BuildOptions = {}): Promise<Bundle> => {
    const file = join(out, entry.replace(/\.mjs$/, options.format === 'cjs' ? '.cjs' : '.mjs'));
    const result = await build({
      entryPoints: [join(project, entry)],
      absWorkingDir: project,
      bundle: true,
      platform: 'node',
      format: 'esm',
      minify: true,
      outfile: file,
      metafile: true,
      logLevel: 'silent',
      ...options,
    });
    const code = readFileSync(file, 'utf8');
    return {
      file,
      bytes: Buffer.byteLength(code),
      code,
      metafile: result.metafile!,
      warnings: result.warnings.map((w) => w.text),
    };
  };

  let rxmcp: Bundle;
  let sdk: Bundle;
  beforeAll(async () => {
    assertBuilt();
    project = consumerProject(
      { 'server.mjs': RXMCP_STDIO_SERVER, 'sdk-server.mjs': SDK_STDIO_SERVER, 'root-server.mjs': ROOT_ENTRY_SERVER },
      ['zod', '@modelcontextprotocol/sdk'],
    );
    out = emptyFolder();
    [rxmcp, sdk] = await Promise.all([bundle('server.mjs'), bundle('sdk-server.mjs')]);
  }, 60_000);
  afterAll(() => {
    rmSync(project, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  it('starts where there is no node_modules and answers initialize', async () => {
    const answer = await answerToInitialize(rxmcp.file);
    expect(answer.result?.serverInfo?.name).toBe('bundled');
  });

  it("takes rxmcp's ES module build, and no require is left for the bundle to fail on", () => {
    const inputs = Object.keys(rxmcp.metafile.inputs);
    expect(inputs.filter((file) => file.includes('/dist/mjs/')).length).toBeGreaterThan(50);
    expect(inputs.filter((file) => file.includes('/dist/lib/') || file.includes('/dist/esm/'))).toEqual([]);
    // esbuild adds this shim for each require it cannot resolve at build time; it throws in an ES module.
    expect(rxmcp.code).not.toContain('Dynamic require of');
  });

  it('leaves out the modules the server reaches but never uses, the package declaring no side effects', () => {
    // rxmcp/stdio exports the stdio client too, and rxmcp/server the skills; a stdio server uses neither.
    const kept = Object.entries(rxmcp.metafile.outputs)
      .flatMap(([, output]) => Object.entries(output.inputs))
      .filter(
        ([file, input]) => /(schema[\\/]skills|stdio-client-transport)\.m?js$/.test(file) && input.bytesInOutput > 0,
      )
      .map(([file]) => file);
    expect(kept).toEqual([]);
  });

  it("carries none of the client's part of a connection: its handshake and lifecycle machine", () => {
    const files = Object.values(rxmcp.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(files.some((file) => /connection[\\/]connection\.m?js$/.test(file))).toBe(true);
    expect(
      files.filter((file) => /(client-handshake|client-lifecycle\.machine|create-connection)\.m?js$/.test(file)),
    ).toEqual([]);
  });

  it('holds zod once, as ES modules, shared with the server code that imports it', () => {
    const zod = zodIn(rxmcp.metafile);
    expect(zod.copies).toHaveLength(1);
    expect(zod.commonJsFiles).toEqual([]);
    expect(zod.files.length).toBeGreaterThan(20);
  });

  it('is no larger than the same server on the official SDK 1.x, bundled the same way', async () => {
    // The SDK's bundle runs too: the two are compared as they work.
    const answer = await answerToInitialize(sdk.file);
    expect(answer.result?.serverInfo?.name).toBe('bundled');
    expect(sdk.bytes).toBeGreaterThan(300_000);
    expect(rxmcp.bytes).toBeLessThanOrEqual(sdk.bytes);
  });

  it('starts from the root entry, whose WebSocket transports load ws only when used', async () => {
    const root = await bundle('root-server.mjs');
    expect(root.code).not.toContain('Dynamic require of');
    const answer = await answerToInitialize(root.file);
    expect(answer.result?.serverInfo?.name).toBe('bundled');
  });

  it('bundles in CommonJS format too, without a warning, and starts', async () => {
    const cjs = await bundle('root-server.mjs', { format: 'cjs', logLevel: 'warning' });
    expect(cjs.warnings).toEqual([]);
    const answer = await answerToInitialize(cjs.file);
    expect(answer.result?.serverInfo?.name).toBe('bundled');
  });
});
