/**
 * Writing the Prometheus text exposition format, version 0.0.4: `# HELP` and `# TYPE` lines, then
 * one line per sample, `name{labels} value`.
 */

/** The `Content-Type` of a scrape's answer. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Appends a metric family's `# HELP` and `# TYPE` lines. */
export function helpAndType(out: string[], name: string, type: 'counter' | 'gauge' | 'histogram', help: string): void {
  out.push(`# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`);
}

/** Appends one sample; `labels` is the text between the braces, already escaped (or '' for none). */
export function sample(out: string[], name: string, labels: string, value: number): void {
  out.push(labels === '' ? `${name} ${formatValue(value)}\n` : `${name}{${labels}} ${formatValue(value)}\n`);
}

/** A label value escaped as the format asks: backslash, double quote and line feed. */
export function labelValue(text: string): string {
  return /[\\"\n]/.test(text) ? text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : text;
}

/** A sample value: integers as they are, the infinities and NaN spelled as the format spells them. */
function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
