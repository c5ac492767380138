import type { VirtualTimeScheduler } from 'rxjs';

/** Moves a virtual clock to `ms`, running only what is due by then. */
export function advanceTo(scheduler: VirtualTimeScheduler, ms: number): void {
  scheduler.schedule(() => undefined, ms - scheduler.now());
  scheduler.maxFrames = ms;
  scheduler.flush();
}
