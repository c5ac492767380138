import type { SchedulerLike, Subscription } from 'rxjs';
import type { ActorOptions, AnyActorLogic } from 'xstate';

/** The clock XState times delayed transitions with. */
export type LifecycleClock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;

/**
 * Adapts an RxJS scheduler into the clock XState times its delays with, so one source of time
 * (a TestScheduler in tests) drives both the lifecycle's delays and the request timeouts.
 */
export function schedulerClock(scheduler: SchedulerLike): LifecycleClock {
  return {
    setTimeout: (fn: (...args: unknown[]) => void, timeout: number) => scheduler.schedule(() => fn(), timeout),
    clearTimeout: (handle: unknown) => (handle as Subscription).unsubscribe(),
  };
}
