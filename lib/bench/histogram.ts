/**
 * A latency histogram in the manner of HdrHistogram: log-linear buckets, so that every recorded
 * value is kept to within 1/{@link SUB_BUCKETS} of itself (under 1 %) whatever its size, in memory
 * that grows with the logarithm of the range rather than with the number of calls. Values are
 * microseconds, from 1 µs to hours. Written here rather than taken from a library: it is some 100
 * lines, the runtime gains no dependency, and its JSON form (sparse bucket counts) is the one the
 * reports and the baseline files keep.
 */

/** Buckets per power of two: the precision of every value (1/128, under 0.8 %). */
export const SUB_BUCKETS = 128;
const SUB_BITS = Math.log2(SUB_BUCKETS);

/** The bucket of a value (µs, a non-negative integer). */
function bucketOf(value: number): number {
  if (value < SUB_BUCKETS) return value;
  const shift = Math.floor(Math.log2(value)) - SUB_BITS;
  return (shift + 1) * SUB_BUCKETS + (Math.floor(value / 2 ** shift) - SUB_BUCKETS);
}

/** The highest value a bucket holds (what a percentile reports, as HdrHistogram does). */
function highestOf(bucket: number): number {
  if (bucket < SUB_BUCKETS) return bucket;
  const shift = Math.floor(bucket / SUB_BUCKETS) - 1;
  const sub = (bucket % SUB_BUCKETS) + SUB_BUCKETS;
  return (sub + 1) * 2 ** shift - 1;
}

/** The JSON form of a histogram: bucket index → count, and the exact extremes and sum. */
export interface HistogramJson {
  readonly buckets: Readonly<Record<string, number>>;
  readonly count: number;
  readonly minUs: number;
  readonly maxUs: number;
  readonly sumUs: number;
}

/** A latency histogram: record values, read percentiles. Mutable; not shared between workers. */
export class LatencyHistogram {
  /** Count per bucket index (dense: a few thousand buckets cover 1 µs to hours). */
  private readonly counts: number[] = [];
  private total = 0;
  private least = Infinity;
  private most = 0;
  private sum = 0;

  /** A histogram from its JSON form (a report's or a baseline's). */
  static fromJSON(json: HistogramJson): LatencyHistogram {
    const histogram = new LatencyHistogram();
    for (const [bucket, count] of Object.entries(json.buckets)) histogram.counts[Number(bucket)] = count;
    histogram.total = json.count;
    histogram.least = json.count === 0 ? Infinity : json.minUs;
    histogram.most = json.maxUs;
    histogram.sum = json.sumUs;
    return histogram;
  }

  /** Records one latency in milliseconds (kept in whole microseconds; negative values count as 0). */
  recordMs(ms: number): void {
    const us = Math.max(0, Math.round(ms * 1000));
    const bucket = bucketOf(us);
    this.counts[bucket] = (this.counts[bucket] ?? 0) + 1;
    this.total++;
    this.sum += us;
    if (us < this.least) this.least = us;
    if (us > this.most) this.most = us;
  }

  /** Adds every value of `other` to this one. */
  add(other: LatencyHistogram): void {
    other.counts.forEach((count, bucket) => (this.counts[bucket] = (this.counts[bucket] ?? 0) + count));
    this.total += other.total;
    this.sum += other.sum;
    this.least = Math.min(this.least, other.least);
    this.most = Math.max(this.most, other.most);
  }

  /** How many values were recorded. */
  get count(): number {
    return this.total;
  }

  /** The largest value recorded, in ms (exact); NaN when empty. */
  get maxMs(): number {
    return this.total === 0 ? NaN : this.most / 1000;
  }

  /** The smallest value recorded, in ms (exact); NaN when empty. */
  get minMs(): number {
    return this.total === 0 ? NaN : this.least / 1000;
  }

  /** The mean, in ms; NaN when empty. */
  get meanMs(): number {
    return this.total === 0 ? NaN : this.sum / this.total / 1000;
  }

  /**
   * The value at or below which `p` percent of the values lie (nearest rank), in ms, to within the
   * histogram's precision and never above the maximum recorded; NaN when empty.
   */
  percentileMs(p: number): number {
    if (this.total === 0) return NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.total));
    let seen = 0;
    for (let bucket = 0; bucket < this.counts.length; bucket++) {
      seen += this.counts[bucket] ?? 0;
      if (seen >= rank) return Math.min(this.most, Math.max(this.least, highestOf(bucket))) / 1000;
    }
    return this.most / 1000;
  }

  /** The JSON form (sparse). */
  toJSON(): HistogramJson {
    const buckets: Record<string, number> = {};
    this.counts.forEach((count, bucket) => {
      if (count > 0) buckets[String(bucket)] = count;
    });
    return {
      buckets,
      count: this.total,
      minUs: this.total === 0 ? 0 : this.least,
      maxUs: this.most,
      sumUs: this.sum,
    };
  }
}
