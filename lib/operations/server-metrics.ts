/**
 * The counters, gauges and histogram of an MCP server, kept in plain numbers and written in the
 * Prometheus text exposition format (version 0.0.4) when scraped. Recording a call costs a few
 * additions, and a Map lookup by method when it is not the method counted last: nothing is
 * allocated once a method has been seen.
 */
import { helpAndType, labelValue, sample } from './exposition';

/** How a call ended, the `outcome` label of `mcp_requests_total`. */
export type CallOutcome = 'ok' | 'error' | 'tool_error' | 'cancelled' | 'closed';

const OUTCOMES: readonly CallOutcome[] = ['ok', 'error', 'tool_error', 'cancelled', 'closed'];

/** The upper bounds (seconds) of `mcp_request_duration_seconds`'s buckets; `+Inf` follows. */
export const DURATION_BUCKETS_SECONDS: readonly number[] = [
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/**
 * At most this many method names get series of their own; later ones count as `other`. A method
 * name is the peer's word: without a bound, a client could grow the series without end.
 */
export const MAX_METHOD_SERIES = 128;

/** What a scrape reads at the moment it is taken. */
export interface MetricsSources {
  /** The sessions open now. */
  readonly sessions?: () => number;
  /** Each upstream's health, 1 up or 0 down (the proxy's `mcp_upstream_up`). */
  readonly upstreams?: () => Readonly<Record<string, boolean>>;
}

/** The counts of one method. */
class MethodSeries {
  readonly outcomes: Record<CallOutcome, number> = { ok: 0, error: 0, tool_error: 0, cancelled: 0, closed: 0 };
  /** Per bucket (not cumulative), the last one being `+Inf`. */
  readonly buckets = new Float64Array(DURATION_BUCKETS_SECONDS.length + 1);
  sum = 0;
  count = 0;
  constructor(readonly label: string) {}
}

/**
 * The series of each method, at most {@link MAX_METHOD_SERIES} of them (later methods share
 * `other`), with the method counted last at hand: calls of one method one after another find its
 * series without a lookup. A method keeps the series it was given: none is ever dropped.
 */
class MethodTable {
  private readonly series = new Map<string, MethodSeries>();
  private lastMethod: string | undefined = undefined;
  private last: MethodSeries | undefined = undefined;

  /** The series `method` is counted in, made on its first call. */
  of(method: string): MethodSeries {
    if (method === this.lastMethod) return this.last!;
    let series = this.series.get(method);
    if (series === undefined) {
      const key = this.series.size < MAX_METHOD_SERIES ? method : 'other';
      series = this.series.get(key);
      if (series === undefined) {
        series = new MethodSeries(labelValue(key));
        this.series.set(key, series);
      }
    }
    this.lastMethod = method;
    return (this.last = series);
  }

  values(): IterableIterator<MethodSeries> {
    return this.series.values();
  }
}

/** The metrics of one server. */
export class ServerMetrics {
  /** Requests received whose response has not been sent. */
  inFlight = 0;
  private readonly methods = new MethodTable();
  private readonly limits = new Map<string, number>();

  constructor(private readonly sources: MetricsSources = {}) {}

  /** Counts a call of `method` that ended as `outcome` after `seconds`. */
  observe(method: string, outcome: CallOutcome, seconds: number): void {
    const series = this.seriesOf(method);
    series.outcomes[outcome]++;
    series.sum += seconds;
    series.count++;
    const bounds = DURATION_BUCKETS_SECONDS;
    let index = 0;
    while (index < bounds.length && seconds > bounds[index]!) index++;
    series.buckets[index]!++;
  }

  /** Counts a refusal by the quota `limit` (`sessions_per_principal`, `listen_streams`, `tasks`, ...). */
  limitHit(limit: string): void {
    this.limits.set(limit, (this.limits.get(limit) ?? 0) + 1);
  }

  /** The exposition of every metric, as `/metrics` answers it. */
  render(): string {
    const out: string[] = [];
    helpAndType(out, 'mcp_requests_total', 'counter', 'MCP requests answered, by method and outcome.');
    for (const series of this.methods.values()) {
      for (const outcome of OUTCOMES) {
        const count = series.outcomes[outcome];
        if (count > 0) sample(out, 'mcp_requests_total', `method="${series.label}",outcome="${outcome}"`, count);
      }
    }
    this.renderDurations(out);
    helpAndType(out, 'mcp_requests_in_flight', 'gauge', 'MCP requests received and not yet answered.');
    sample(out, 'mcp_requests_in_flight', '', this.inFlight);
    if (this.sources.sessions) {
      helpAndType(out, 'mcp_sessions_open', 'gauge', 'MCP sessions open in this process.');
      sample(out, 'mcp_sessions_open', '', this.sources.sessions());
    }
    if (this.sources.upstreams) {
      helpAndType(out, 'mcp_upstream_up', 'gauge', 'Whether each upstream server is connected (1) or not (0).');
      for (const [name, up] of Object.entries(this.sources.upstreams()))
        sample(out, 'mcp_upstream_up', `upstream="${labelValue(name)}"`, up ? 1 : 0);
    }
    helpAndType(out, 'mcp_limit_hits_total', 'counter', 'Requests refused because a quota was full, by quota.');
    for (const [limit, count] of this.limits)
      sample(out, 'mcp_limit_hits_total', `limit="${labelValue(limit)}"`, count);
    return out.join('');
  }

  private renderDurations(out: string[]): void {
    const name = 'mcp_request_duration_seconds';
    helpAndType(out, name, 'histogram', 'How long MCP requests took to answer, by method.');
    for (const series of this.methods.values()) {
      const method = `method="${series.label}"`;
      let cumulative = 0;
      DURATION_BUCKETS_SECONDS.forEach((bound, index) => {
        cumulative += series.buckets[index]!;
        sample(out, `${name}_bucket`, `${method},le="${bound}"`, cumulative);
      });
      sample(out, `${name}_bucket`, `${method},le="+Inf"`, series.count);
      sample(out, `${name}_sum`, method, series.sum);
      sample(out, `${name}_count`, method, series.count);
    }
  }

  private seriesOf(method: string): MethodSeries {
    return this.methods.of(method);
  }
}
