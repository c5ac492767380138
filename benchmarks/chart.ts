/**
 * The SVG chart of a report: calls per second of each implementation on every call row (grouped
 * bars, each row scaled to its fastest implementation, since rows differ by orders of magnitude),
 * then each target's ratio against its goal.
 */
import { describe, find, fmt, groups, QUICK_NOTICE } from './report-model';
import type { RunReport } from './report-model';
import { targets } from './targets';
import type { Target } from './targets';

const COLORS: Readonly<Record<string, string>> = {
  rxmcp: '#2b6cb0',
  official: '#dd6b20',
  'official-v2': '#d69e2e',
  floor: '#718096',
};
const IMPLEMENTATIONS = Object.keys(COLORS);
const LABEL_WIDTH = 520;
const BAR_WIDTH = 400;
const WIDTH = LABEL_WIDTH + BAR_WIDTH + 120;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Grouped bars of calls per second; returns the SVG parts and the height used below `top`. */
function callBars(report: RunReport, top: number): { parts: string[]; height: number } {
  const parts: string[] = [];
  let y = top;
  parts.push(
    `<text x="10" y="${y + 14}" font-weight="bold">Calls per second, median (bars scaled to the row's fastest)</text>`,
  );
  IMPLEMENTATIONS.forEach((name, i) => {
    const x = LABEL_WIDTH + i * 100;
    parts.push(`<rect x="${x}" y="${y + 22}" width="12" height="12" fill="${COLORS[name]}"/>`);
    parts.push(`<text x="${x + 16}" y="${y + 33}">${name}</text>`);
  });
  y += 44;
  for (const group of groups(report, 'calls', 'scale')) {
    const bars = IMPLEMENTATIONS.flatMap((name) => {
      const m = find(report, group, name);
      return m && Number.isFinite(m.perSecond.median) ? [{ name, value: m.perSecond.median }] : [];
    });
    if (bars.length === 0) continue;
    const max = Math.max(...bars.map((b) => b.value));
    parts.push(`<text x="10" y="${y + 12}">${esc(describe(group))}</text>`);
    for (const bar of bars) {
      const width = Math.max(1, (bar.value / max) * BAR_WIDTH);
      parts.push(`<rect x="${LABEL_WIDTH}" y="${y}" width="${width}" height="12" fill="${COLORS[bar.name]}"/>`);
      parts.push(`<text x="${LABEL_WIDTH + width + 6}" y="${y + 10}" font-size="10">${fmt(bar.value)}</text>`);
      y += 14;
    }
    y += 8;
  }
  return { parts, height: y - top };
}

/** One bar per target, longer is better (ratios where lower is better are drawn inverted). */
function targetBars(all: readonly Target[], top: number): { parts: string[]; height: number } {
  const better = (t: Target, value: number) => (t.kind === 'min' ? value : 1 / value);
  const shown = all.map((t) => ({ ...t, better: better(t, t.value), goal: better(t, t.target) }));
  const max = Math.max(6, ...shown.map((t) => Math.min(t.better, 12)), ...shown.map((t) => t.goal));
  const x = (v: number) => LABEL_WIDTH + (Math.min(Math.max(v, 0), max) / max) * BAR_WIDTH;
  const parts = [
    `<text x="10" y="${top + 14}" font-weight="bold">Targets (× better; black mark = target; green met, amber bounded by the floor, red not met)</text>`,
  ];
  shown.forEach((t, i) => {
    const y = top + 26 + i * 22;
    parts.push(`<text x="10" y="${y + 12}" font-size="11">${esc(`${t.row}: ${t.measure}`)}</text>`);
    const fill = t.met ? '#3a7' : t.bounded ? '#e9a23b' : '#d54';
    parts.push(`<rect x="${LABEL_WIDTH}" y="${y}" width="${x(t.better) - LABEL_WIDTH}" height="16" fill="${fill}"/>`);
    parts.push(
      `<line x1="${x(t.goal)}" y1="${y - 2}" x2="${x(t.goal)}" y2="${y + 18}" stroke="black" stroke-width="2"/>`,
    );
    parts.push(`<text x="${x(t.better) + 6}" y="${y + 12}">${fmt(t.better, 2)}×</text>`);
  });
  return { parts, height: 26 + shown.length * 22 };
}

export function renderChart(report: RunReport): string {
  const title = report.quick
    ? `rxmcp benchmarks (${QUICK_NOTICE})`
    : `rxmcp benchmarks, ${report.runs.length} run${report.runs.length === 1 ? '' : 's'}, ${report.date.slice(0, 10)}`;
  const calls = callBars(report, 34);
  const goals = targetBars(targets(report), 34 + calls.height + 16);
  const height = 34 + calls.height + 16 + goals.height + 10;
  return (
    [
      `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="12">`,
      `<rect width="100%" height="100%" fill="white"/>`,
      `<text x="10" y="20" font-size="14" font-weight="bold">${esc(title)}</text>`,
      ...calls.parts,
      ...goals.parts,
      '</svg>',
    ].join('\n') + '\n'
  );
}
