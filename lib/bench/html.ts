/**
 * The report as one self-contained HTML page (no script, no network): the table, then charts drawn
 * as inline SVG with the targets side by side: calls per second with their spread, latency over
 * the time of each steady phase (p99 per 100 ms), and the latency percentile distribution.
 */
import type { BenchReport, Spread, TargetResult } from './report';
import { pooledHistogram } from './report';
import { formatNumber, formatSpread } from './table';

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
const WIDTH = 720;
const HEIGHT = 300;
const PAD = { left: 64, right: 40, top: 16, bottom: 40 };

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A series of a line chart: one target's points. */
interface Series {
  readonly name: string;
  readonly colour: string;
  readonly points: ReadonlyArray<readonly [number, number]>;
}

/** Round tick values from 0 to `max`, about five of them. */
function ticks(max: number): number[] {
  if (!(max > 0)) return [0];
  const step = 10 ** Math.floor(Math.log10(max / 5));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => max / s <= 6) ?? step * 10;
  return Array.from({ length: Math.floor(max / nice) + 1 }, (_, i) => i * nice);
}

/** An SVG frame: axes, ticks and labels, with `body` drawn inside, scaled by the caller. */
function frame(
  id: string,
  title: string,
  body: string,
  xTicks: string,
  yTicks: string,
  xLabel: string,
  yLabel: string,
) {
  const bottom = HEIGHT - PAD.bottom;
  return `<figure><figcaption>${escape(title)}</figcaption>
<svg class="chart" data-chart="${id}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escape(title)}">
<line x1="${PAD.left}" y1="${bottom}" x2="${WIDTH - PAD.right}" y2="${bottom}" class="axis"/>
<line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${bottom}" class="axis"/>
${xTicks}${yTicks}${body}
<text x="${(PAD.left + WIDTH - PAD.right) / 2}" y="${HEIGHT - 6}" text-anchor="middle">${escape(xLabel)}</text>
<text x="14" y="${(PAD.top + bottom) / 2}" transform="rotate(-90 14 ${(PAD.top + bottom) / 2})" text-anchor="middle">${escape(yLabel)}</text>
</svg></figure>`;
}

/** The y axis's scale and ticks up to `max`. */
function yAxis(max: number) {
  const values = ticks(max);
  const top = Math.max(max, values.at(-1)!) || 1;
  const y = (v: number) => HEIGHT - PAD.bottom - (v / top) * (HEIGHT - PAD.top - PAD.bottom);
  const marks = values
    .map((v) => `<text x="${PAD.left - 6}" y="${y(v) + 4}" text-anchor="end">${formatNumber(v)}</text>`)
    .join('');
  return { y, marks };
}

function legend(series: readonly Series[]): string {
  return series
    .map(
      (s, i) =>
        `<rect x="${PAD.left + 10}" y="${PAD.top + 4 + i * 16}" width="10" height="10" fill="${s.colour}"/><text x="${PAD.left + 26}" y="${PAD.top + 13 + i * 16}">${escape(s.name)}</text>`,
    )
    .join('');
}

/** A line chart of the series on linear axes, or with `xAt` placing x values (the percentile axis). */
function lineChart(
  id: string,
  title: string,
  series: readonly Series[],
  labels: { x: string; y: string },
  xAxis: { max: number; ticks: ReadonlyArray<readonly [number, string]> },
) {
  const maxY = Math.max(0, ...series.flatMap((s) => s.points.map(([, v]) => v)).filter(Number.isFinite));
  const { y, marks } = yAxis(maxY);
  const x = (v: number) => PAD.left + (v / (xAxis.max || 1)) * (WIDTH - PAD.left - PAD.right);
  const xMarks = xAxis.ticks
    .map(([v, text]) => `<text x="${x(v)}" y="${HEIGHT - PAD.bottom + 16}" text-anchor="middle">${escape(text)}</text>`)
    .join('');
  const lines = series
    .map((s) => {
      const points = s.points.filter(([a, b]) => Number.isFinite(a) && Number.isFinite(b));
      return `<polyline class="series" data-target="${escape(s.name)}" fill="none" stroke="${s.colour}" stroke-width="1.5" points="${points.map(([a, b]) => `${x(a).toFixed(1)},${y(b).toFixed(1)}`).join(' ')}"/>`;
    })
    .join('\n');
  return frame(id, title, `${lines}${legend(series)}`, xMarks, marks, labels.x, labels.y);
}

/** Calls per second per target: a bar at the median, a whisker from min to max. */
function throughputChart(targets: readonly TargetResult[]): string {
  const max = Math.max(0, ...targets.map((t) => t.summary.perSecond.max).filter(Number.isFinite));
  const { y, marks } = yAxis(max);
  const slot = (WIDTH - PAD.left - PAD.right) / Math.max(1, targets.length);
  const bars = targets
    .map((t, i) => {
      const { median, min, max: top } = t.summary.perSecond;
      const left = PAD.left + i * slot + slot * 0.2;
      const mid = left + slot * 0.3;
      const bottom = HEIGHT - PAD.bottom;
      return `<rect class="series" data-target="${escape(t.name)}" x="${left}" y="${y(median)}" width="${slot * 0.6}" height="${Math.max(1, bottom - y(median))}" fill="${COLOURS[i % COLOURS.length]}"/>
<line x1="${mid}" y1="${y(min)}" x2="${mid}" y2="${y(top)}" stroke="#000"/>
<text x="${mid}" y="${bottom + 16}" text-anchor="middle">${escape(t.name)}</text>`;
    })
    .join('\n');
  return frame(
    'throughput',
    'Calls per second: median, and [min – max] across repetitions',
    bars,
    '',
    marks,
    'target',
    'calls/s',
  );
}

/** p99 (and p50) of each 100 ms of each repetition's steady phase. */
function timelineChart(targets: readonly TargetResult[]): string {
  const series: Series[] = targets.flatMap((t, i) =>
    t.reps.map((rep) => ({
      name: targets.length > 0 && t.reps.length > 1 ? `${t.name} #${rep.rep}` : t.name,
      colour: COLOURS[i % COLOURS.length]!,
      points: rep.timeline.map((p) => [p.atMs / 1000, p.p99Ms] as const),
    })),
  );
  const maxX = Math.max(0, ...series.flatMap((s) => s.points.map(([x]) => x)));
  const xTicks = ticks(maxX).map((v) => [v, `${formatNumber(v)} s`] as const);
  return lineChart(
    'timeline',
    'Latency over time: p99 of each 100 ms of the steady phase',
    series,
    { x: 'time', y: 'p99 ms' },
    { max: maxX, ticks: xTicks },
  );
}

/** The percentiles of every steady call, on an axis that spreads the tail: x = log10(1 / (1 - p)). */
function percentileChart(targets: readonly TargetResult[]): string {
  const PERCENTILES = [0, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99];
  const at = (p: number) => Math.log10(100 / (100 - p));
  const series: Series[] = targets.map((t, i) => {
    const h = pooledHistogram(t);
    return {
      name: t.name,
      colour: COLOURS[i % COLOURS.length]!,
      points: PERCENTILES.map((p) => [at(p), h.percentileMs(p)] as const),
    };
  });
  const xTicks = [0, 50, 90, 99, 99.9, 99.99].map((p) => [at(p), `p${p}`] as const);
  return lineChart(
    'percentiles',
    'Latency by percentile, all steady calls',
    series,
    { x: 'percentile', y: 'ms' },
    { max: at(99.99), ticks: xTicks },
  );
}

function table(report: BenchReport): string {
  const head = [
    'target',
    'reached',
    'calls/s',
    'p50 ms',
    'p90 ms',
    'p99 ms',
    'p99.9 ms',
    'max ms',
    'cold p50 ms',
    'errors',
    'server CPU ms/call',
    'server RSS MiB',
    'RSS KiB/session',
    'note',
  ];
  const optional = (spread: Spread | undefined) => (spread ? formatSpread(spread) : '–');
  const rows = report.targets.map((t) =>
    [
      t.name,
      t.how,
      formatSpread(t.summary.perSecond),
      formatSpread(t.summary.p50Ms),
      formatSpread(t.summary.p90Ms),
      formatSpread(t.summary.p99Ms),
      formatSpread(t.summary.p999Ms),
      formatSpread(t.summary.maxMs),
      formatSpread(t.summary.coldP50Ms),
      Object.entries(t.summary.errors)
        .map(([c, n]) => `${c} ×${n}`)
        .join(', ') || '0',
      optional(t.summary.cpuMsPerCall),
      optional(t.summary.rssMiB),
      optional(t.summary.rssPerSessionKiB),
      t.summary.noisy ? `not for quoting: ${t.summary.noisy}` : '',
    ]
      .map((cell) => `<td>${escape(cell)}</td>`)
      .join(''),
  );
  return `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r}</tr>`).join('\n')}</tbody></table>`;
}

/** The whole page. */
export function renderHtml(report: BenchReport): string {
  const s = report.settings;
  const title = `rxmcp bench: ${report.targets.map((t) => t.name).join(', ')}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>
body { font: 14px system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; } td, th { border: 1px solid #ccc; padding: 4px 8px; text-align: right; }
td { white-space: nowrap; } td:first-child, td:nth-child(2), td:last-child, th { text-align: left; }
td:last-child { white-space: normal; min-width: 18em; }
svg text { font-size: 11px; fill: #333; } .axis { stroke: #666; }
figure { margin: 1.5em 0; } figcaption { font-weight: 600; margin-bottom: 4px; }
</style></head><body>
<h1>${escape(title)}</h1>
<p>${escape(`${s.workload}, ${s.load}; ${s.reps} repetitions of ${s.durationMs / 1000} s per target, interleaved; ${s.coldCalls} cold calls per connection.`)}</p>
<p>${escape(`${report.machine}. Started ${report.startedAt}; load average ${report.loadAvgStart.map((v) => v.toFixed(2)).join(' ')} at the start, ${report.loadAvgEnd.map((v) => v.toFixed(2)).join(' ')} at the end.`)}</p>
${table(report)}
${throughputChart(report.targets)}
${timelineChart(report.targets)}
${percentileChart(report.targets)}
</body></html>
`;
}
