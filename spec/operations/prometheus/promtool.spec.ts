import { spawn } from 'node:child_process';
import { programPath } from '../../support/programs';
import { serverAfterCalls } from './scrape-fixture';
import type { ScrapedServer } from './scrape-fixture';

/** Runs `promtool check metrics` on `text`; resolves with its exit code and what it printed. */
function promtoolCheck(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(programPath('promtool'), ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}

describe('/metrics and promtool', () => {
  let scraped: ScrapedServer | undefined;
  afterEach(async () => {
    await scraped?.close();
    scraped = undefined;
  });

  it('passes `promtool check metrics` with no problems after calls of every outcome', async () => {
    scraped = await serverAfterCalls();
    const response = await fetch(new URL('/metrics', scraped.running.url));
    const text = await response.text();
    expect(text).toContain('mcp_requests_total{method="tools/call",outcome="tool_error"} 1\n');
    expect(text).toContain('mcp_request_duration_seconds_bucket{method="tools/call",le="0.005"}');
    await expect(promtoolCheck(text)).resolves.toEqual({ code: 0, output: '' });
  });

  it('fails `promtool check metrics` on a malformed exposition (the check can fail)', async () => {
    const result = await promtoolCheck('# TYPE requests counter\nrequests{method="x} 1\n');
    expect(result.code).not.toBe(0);
  });
});
