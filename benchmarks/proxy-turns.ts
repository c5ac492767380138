/**
 * The in-memory proxy rows' sides measured in turns: each side runs in a process of its own (see
 * proxy-side.ts), all of them started and warmed up together, and then measured one after another,
 * a short measurement each, turn after turn (the order reversed every other turn). What the
 * machine does meanwhile (another process's work, a core slowed for a while) then falls on every
 * side alike, where measuring one side's process after another's put whole seconds of it on one.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { ProxySide } from './proxy-cost';

/** One measurement of a side: calls per second, latencies, and the CPU time a call cost its process. */
export interface SideSample {
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly cpuMicros: number;
}

/** How each side's process warms up and measures. */
export interface TurnSettings {
  readonly inFlight: number;
  readonly warmupCalls: number;
  readonly warmupMs: number;
  /** Calls (at least) and milliseconds (at least) of each measurement. */
  readonly calls: number;
  readonly ms: number;
}

/** A side's process, answering one line per request. */
class SideProcess {
  private readonly child: ChildProcess;
  private buffered = '';
  private readonly waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];

  constructor(side: ProxySide, settings: TurnSettings) {
    const { inFlight, warmupCalls, warmupMs, calls, ms } = settings;
    const args = [side, inFlight, warmupCalls, warmupMs, calls, ms, 0].map(String);
    this.child = spawn(process.execPath, [join(__dirname, 'proxy-side.js'), ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => this.read(chunk));
    this.child.on('exit', (code) => {
      for (const waiter of this.waiting.splice(0)) waiter.reject(new Error(`proxy-side ${side} exited (${code})`));
    });
  }

  /** Resolves once the process is warmed up. */
  ready(): Promise<string> {
    return this.nextLine();
  }

  async measure(): Promise<SideSample> {
    const line = this.nextLine();
    this.child.stdin!.write('go\n');
    return JSON.parse(await line) as SideSample;
  }

  stop(): Promise<void> {
    // A process that already exited (it failed) has nothing to stop.
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.stdin!.end('stop\n');
    });
  }

  private nextLine(): Promise<string> {
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private read(chunk: string): void {
    this.buffered += chunk;
    let end: number;
    while ((end = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, end);
      this.buffered = this.buffered.slice(end + 1);
      this.waiting.shift()?.resolve(line);
    }
  }
}

/** `turns` measurements of each side, taken in turns by one process per side. */
export async function inTurns(
  sides: readonly ProxySide[],
  turns: number,
  settings: TurnSettings,
): Promise<Map<ProxySide, SideSample[]>> {
  const processes = sides.map((side) => [side, new SideProcess(side, settings)] as const);
  const samples = new Map<ProxySide, SideSample[]>(sides.map((side) => [side, []]));
  try {
    await Promise.all(processes.map(([, process]) => process.ready()));
    for (let turn = 0; turn < turns; turn++) {
      const order = turn % 2 === 0 ? processes : [...processes].reverse();
      for (const [side, process] of order) samples.get(side)!.push(await process.measure());
    }
  } finally {
    await Promise.all(processes.map(([, process]) => process.stop()));
  }
  return samples;
}
