import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { programPath } from '../../support/programs';
import { freePort } from '../../support/redis-server';
import { serverAfterCalls } from './scrape-fixture';
import type { ScrapedServer } from './scrape-fixture';

interface QueryAnswer {
  readonly status: string;
  readonly data: { readonly result: Array<{ metric: Record<string, string>; value: [number, string] }> };
}

/** Asks Prometheus' HTTP API for `query` until it returns series, for at most `withinMs`. */
async function seriesOf(api: string, query: string, withinMs: number): Promise<QueryAnswer['data']['result']> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(query)}`);
      if (response.ok) {
        const answer = (await response.json()) as QueryAnswer;
        if (answer.status === 'success' && answer.data.result.length > 0) return answer.data.result;
      }
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`Prometheus returned no ${query} within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('/metrics scraped by a real Prometheus', () => {
  let scraped: ScrapedServer | undefined;
  let prometheus: ChildProcess | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    if (prometheus && prometheus.exitCode === null && prometheus.signalCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGKILL');
      await exited;
    }
    prometheus = undefined;
    await scraped?.close();
    scraped = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('stores mcp_requests_total by method and outcome from a scrape of the server', async () => {
    scraped = await serverAfterCalls();
    dir = mkdtempSync(join(tmpdir(), 'rxmcp-prometheus-'));
    const config = join(dir, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        'scrape_configs:',
        '  - job_name: rxmcp',
        '    static_configs:',
        `      - targets: ['127.0.0.1:${scraped.running.port}']`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    prometheus = spawn(
      programPath('prometheus'),
      [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
      { stdio: 'ignore' },
    );
    const series = await seriesOf(`http://127.0.0.1:${port}`, 'mcp_requests_total', 15_000);
    const byLabels = Object.fromEntries(
      series.map(({ metric, value }) => [`${metric.method} ${metric.outcome}`, value[1]]),
    );
    expect(byLabels).toMatchObject({ 'tools/call ok': '2', 'tools/call tool_error': '1', 'initialize ok': '1' });
    expect(series[0]!.metric).toMatchObject({ job: 'rxmcp', instance: `127.0.0.1:${scraped.running.port}` });
  }, 25_000);
});
