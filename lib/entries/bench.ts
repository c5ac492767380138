// rxmcp/bench: the engine of `rxmcp bench` as a library. Load is an Observable schedule (a closed
// loop, an open loop), each call an Observable with its deadline; runBench measures targets side by
// side, rep by rep, and gives a report to print as a table, HTML or JSON, or compare with a baseline.
export { performanceScheduler } from '../bench/clock';
export { compareReports } from '../bench/compare';
export { describeLoad, runBench } from '../bench/engine';
export type { BenchConnection, BenchEvent, BenchLoad, BenchOptions, BenchTarget } from '../bench/engine';
export { LatencyHistogram } from '../bench/histogram';
export type { HistogramJson } from '../bench/histogram';
export { renderHtml } from '../bench/html';
export { closedLoop, errorCode, openLoop, timedCall } from '../bench/load';
export type { BenchCall, CallOutcome, ClosedLoopOptions, OpenLoopOptions, TimedCallOptions } from '../bench/load';
export { parseMix } from '../bench/mix';
export { collectPhase, hasSettled, warmUp } from '../bench/phase';
export type { CollectOptions, PhaseResult, TimelinePoint, WarmUpOptions, WarmUpReport } from '../bench/phase';
export { processUsage } from '../bench/process-usage';
export type { ProcessUsage } from '../bench/process-usage';
export { median, spreadOf, summarizePhase, summarizeTarget } from '../bench/report';
export type {
  BenchReport,
  BenchSettings,
  PhaseSummary,
  RepResult,
  ServerUsage,
  Spread,
  TargetResult,
  TargetSummary,
} from '../bench/report';
export { kneeOf, mergeSweep, runSweep } from '../bench/sweep';
export type { SweepPoint } from '../bench/sweep';
export { formatNumber, formatSpread, formatTable } from '../bench/table';
export { transportTarget } from '../bench/transport-target';
export type { TransportTargetOptions } from '../bench/transport-target';
export { BenchWorkloadError, checkServed, describeWorkload, workloadCall } from '../bench/workload';
export type { BenchOperation, BenchWorkload, Served } from '../bench/workload';
