/**
 * A local process's CPU time and resident set, read from Linux's /proc: what a stdio target's
 * server (or a local server named by PID) spends. Elsewhere, or for a process gone, nothing.
 */
import { readFileSync } from 'node:fs';

/** A process's CPU time so far (user and system) and its resident set now. */
export interface ProcessUsage {
  readonly cpuMs: number;
  readonly rssBytes: number;
}

/** The kernel's clock ticks per second: 100 on every Linux this runs on (`getconf CLK_TCK`). */
const TICKS_PER_SECOND = 100;

/** The usage of process `pid`, or undefined where /proc cannot tell (not Linux, no such process). */
export function processUsage(pid: number): ProcessUsage | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime and stime, fields 14 and 15
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKiB = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? NaN);
    if (!Number.isFinite(ticks) || !Number.isFinite(rssKiB)) return undefined;
    return { cpuMs: (ticks * 1000) / TICKS_PER_SECOND, rssBytes: rssKiB * 1024 };
  } catch {
    return undefined;
  }
}
