/**
 * The CPU time another process has used, read from `/proc/<pid>/stat` (Linux): how a benchmark
 * weighs the work of a process it started (a proxy, a server) apart from its own.
 */
import { existsSync, readFileSync } from 'node:fs';

/**
 * A process's user and system CPU time in microseconds, in steps of the kernel's clock tick (10 ms
 * at the usual 100 ticks a second); undefined where there is no `/proc` or no such process.
 */
export function cpuOfProcess(pid: number | undefined): number | undefined {
  const stat = pid === undefined ? undefined : `/proc/${pid}/stat`;
  if (stat === undefined || !existsSync(stat)) return undefined;
  // The command name (field 2) may hold spaces: the fields after it are counted from its ')'.
  const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}
