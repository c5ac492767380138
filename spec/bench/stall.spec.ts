import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { CliIo } from '../../lib/cli/io';
import { main } from '../../lib/cli/main';
import type { BenchReport } from '../../lib/bench/report';

// Queueing that a closed loop hides: a server that stalls 100 ms every second. In a closed loop the
// stall delays one call, and the load waits with it, so the p99 does not see it; in an open loop
// every call due during the stall waits, and the p99 does.

/** A stdio server (the official SDK's) with an echo tool, that blocks its event loop 100 ms every second. */
const STALLING_SERVER = `
const { McpServer } = require(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/server/mcp.js'))});
const { StdioServerTransport } = require(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/server/stdio.js'))});
const server = new McpServer({ name: 'stalling', version: '1.0.0' });
server.registerTool('echo', { description: 'Echoes.' }, async () => ({ content: [{ type: 'text', text: 'hi' }] }));
setInterval(() => { const end = Date.now() + 100; while (Date.now() < end); }, 1000).unref();
server.connect(new StdioServerTransport());
process.stdin.on('end', () => process.exit(0));
`;

function run(argv: string[]): Promise<number> {
  const io: CliIo = {
    stdin: new PassThrough(),
    stdout: new PassThrough().resume(),
    stderr: { isTTY: false, write: () => true },
    env: {},
    interrupted: new Promise<string>(() => undefined),
  };
  return main(argv, io);
}

describe('rxmcp bench against a server that stalls 100 ms every second', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxmcp-stall-'));
    writeFileSync(join(dir, 'stalling-server.js'), STALLING_SERVER);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const measure = async (...load: string[]) => {
    const json = join(dir, 'report.json');
    const target = `stalling=${process.execPath} ${join(dir, 'stalling-server.js')}`;
    const argv = ['bench', target, '-t', 'echo', ...load, '-d', '3s', '--reps', '1', '--cold', '5'];
    expect(await run([...argv, '--warmup-max', '300ms', '--json', json])).toBe(0);
    return (JSON.parse(readFileSync(json, 'utf8')) as BenchReport).targets[0]!.summary;
  };

  it('shows the stall in the open-loop p99 and not in the closed loop', async () => {
    const open = await measure('--rate', '100');
    const closed = await measure('--concurrency', '1');
    // About 10 calls in 100 are due during a stall, waiting up to 100 ms each.
    expect(open.p99Ms.median).toBeGreaterThan(50);
    // One call a second waits on the stall, among hundreds that do not: its p99 is a fraction of
    // the open loop's (on a busy machine, not quite the server's own time).
    expect(closed.p99Ms.median * 3).toBeLessThan(open.p99Ms.median);
    expect(closed.maxMs.median).toBeGreaterThan(50);
    expect(closed.perSecond.median).toBeGreaterThan(200);
  }, 30_000);
});
