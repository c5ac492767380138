import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import type { Browser } from 'puppeteer-core';
import { lastValueFrom } from 'rxjs';
import { z } from 'zod';
import { runBench } from '../../lib/bench/engine';
import type { BenchTarget } from '../../lib/bench/engine';
import { renderHtml } from '../../lib/bench/html';
import type { BenchReport } from '../../lib/bench/report';
import { createServer } from '../../lib/server/server';
import { textResult } from '../../lib/server/results';
import { connected } from '../support/connected';
import { programPath } from '../support/programs';

// rxmcp bench --html: one self-contained page (nothing fetched) whose charts render in Chromium with
// the targets side by side: throughput, latency over time and the percentile distribution.

function target(name: string, delayMs: number): BenchTarget {
  return {
    name,
    how: 'in memory',
    async open() {
      const server = createServer({ name, version: '1.0.0' });
      server.tool({
        name: 'echo',
        inputSchema: z.object({ text: z.string() }),
        handler: async ({ text }) => {
          await new Promise((done) => setTimeout(done, delayMs));
          return textResult(text);
        },
      });
      const client = await connected(server, { protocolVersion: '2025-11-25' });
      return { client, close: async () => client.close() };
    },
  };
}

describe('the HTML report of rxmcp bench in headless Chromium', () => {
  let browser: Browser | undefined;
  let dir: string;
  let report: BenchReport;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxmcp-bench-html-'));
    const [last] = await Promise.all([
      lastValueFrom(
        runBench({
          targets: [target('fast', 0), target('slow', 2)],
          workload: { kind: 'tool', name: 'echo', arguments: { text: 'hi' } },
          load: { kind: 'closed', concurrency: 2 },
          reps: 2,
          durationMs: 300,
          coldCalls: 5,
          warmUp: { windowMs: 50, maxMs: 150 },
        }),
      ),
      puppeteer
        .launch({
          executablePath: programPath('chromium'),
          headless: true,
          args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
        })
        .then((b) => (browser = b)),
    ]);
    if (last.type !== 'report') throw new Error('no report');
    report = last.report;
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('renders the table and the three charts, each target drawn, fetching nothing', async () => {
    const file = join(dir, 'report.html');
    writeFileSync(file, renderHtml(report));
    const tab = await browser!.newPage();
    const requested: string[] = [];
    tab.on('request', (request) => requested.push(request.url()));
    try {
      await tab.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      expect(requested).toEqual([pathToFileURL(file).href]);
      const charts = await tab.$$eval('svg.chart', (svgs) =>
        svgs.map((svg) => {
          const box = svg.getBoundingClientRect();
          const series = [...svg.querySelectorAll('.series')].map((shape) => {
            // The page's SVG shapes have getBBox; the spec's own types (Node's) do not know SVG.
            const b = (shape as unknown as { getBBox(): { width: number; height: number } }).getBBox();
            return { target: shape.getAttribute('data-target'), width: b.width, height: b.height };
          });
          return { chart: svg.getAttribute('data-chart'), width: box.width, height: box.height, series };
        }),
      );
      expect(charts.map((c) => c.chart)).toEqual(['throughput', 'timeline', 'percentiles']);
      for (const chart of charts) {
        expect(chart.width).toBeGreaterThan(300);
        expect(chart.height).toBeGreaterThan(100);
        for (const shape of chart.series) expect(shape.width + shape.height).toBeGreaterThan(10);
      }
      const [throughput, timeline, percentiles] = charts;
      expect(throughput!.series.map((s) => s.target)).toEqual(['fast', 'slow']);
      expect(timeline!.series.map((s) => s.target)).toEqual(['fast #1', 'fast #2', 'slow #1', 'slow #2']);
      expect(percentiles!.series.map((s) => s.target)).toEqual(['fast', 'slow']);
      // The line of every series spans the chart's width: its points were drawn, not left empty.
      for (const shape of [...timeline!.series, ...percentiles!.series]) expect(shape.width).toBeGreaterThan(300);
      const rows = await tab.$$eval('tbody tr', (trs) => trs.map((tr) => tr.querySelector('td')?.textContent));
      expect(rows).toEqual(['fast', 'slow']);
      const heads = await tab.$$eval('thead th', (ths) => ths.map((th) => th.textContent));
      expect(heads).toEqual(
        expect.arrayContaining(['calls/s', 'p99 ms', 'cold p50 ms', 'server CPU ms/call', 'RSS KiB/session']),
      );
    } finally {
      await tab.close();
    }
  });
});
