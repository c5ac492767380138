/**
 * The part of RxJS that rxmcp uses, each loaded from its own module.
 *
 * `require('rxjs')` loads every operator and observable creator RxJS has, about 70 ms on a small
 * machine before a server can start. These are the same classes and functions (the `rxjs` entry
 * re-exports these modules), so Observables made here and in user code are interchangeable, but
 * loading only what the runtime needs roughly halves RxJS's share of start-up time. Everything in
 * lib imports RxJS from here; lint keeps it so.
 */
export type {
  MonoTypeOperatorFunction,
  Observer,
  ObservableInput,
  OperatorFunction,
  SchedulerAction,
  SchedulerLike,
  Subscriber,
  Unsubscribable,
} from 'rxjs';
import type * as DeferModule from 'rxjs/internal/observable/defer';
import type * as ForkJoinModule from 'rxjs/internal/observable/forkJoin';
import type * as FromModule from 'rxjs/internal/observable/from';
import type * as IntervalModule from 'rxjs/internal/observable/interval';
import type * as MergeModule from 'rxjs/internal/observable/merge';
import type * as OfModule from 'rxjs/internal/observable/of';
import type * as RaceModule from 'rxjs/internal/observable/race';
import type * as ThrowErrorModule from 'rxjs/internal/observable/throwError';
import type * as TimerModule from 'rxjs/internal/observable/timer';
import type * as CatchErrorModule from 'rxjs/internal/operators/catchError';
import type * as ConcatMapModule from 'rxjs/internal/operators/concatMap';
import type * as ExhaustMapModule from 'rxjs/internal/operators/exhaustMap';
import type * as FilterModule from 'rxjs/internal/operators/filter';
import type * as FinalizeModule from 'rxjs/internal/operators/finalize';
import type * as LastModule from 'rxjs/internal/operators/last';
import type * as MapModule from 'rxjs/internal/operators/map';
import type * as ShareModule from 'rxjs/internal/operators/share';
import type * as SkipModule from 'rxjs/internal/operators/skip';
import type * as SwitchMapModule from 'rxjs/internal/operators/switchMap';
import type * as TakeModule from 'rxjs/internal/operators/take';
import type * as TakeUntilModule from 'rxjs/internal/operators/takeUntil';
import type * as TapModule from 'rxjs/internal/operators/tap';
import type * as ToArrayModule from 'rxjs/internal/operators/toArray';

export { Observable } from 'rxjs/internal/Observable';
export { Subject } from 'rxjs/internal/Subject';
export { BehaviorSubject } from 'rxjs/internal/BehaviorSubject';
export { ReplaySubject } from 'rxjs/internal/ReplaySubject';
export { Subscription } from 'rxjs/internal/Subscription';
export { EmptyError } from 'rxjs/internal/util/EmptyError';
export { isObservable } from 'rxjs/internal/util/isObservable';
export { pipe } from 'rxjs/internal/util/pipe';
export { firstValueFrom } from 'rxjs/internal/firstValueFrom';
export { lastValueFrom } from 'rxjs/internal/lastValueFrom';
export { asyncScheduler } from 'rxjs/internal/scheduler/async';

export { EMPTY } from 'rxjs/internal/observable/empty';
export { NEVER } from 'rxjs/internal/observable/never';

/*
 * The creators and operators below are loaded when first read: a connection's per-call path reads
 * none of them, and their 60 modules took about 12 ms of every start. Each is declared here and
 * read through a getter that loads its module, then replaces itself with the value. The ES module
 * build imports them as they are (scripts/build-esm.cjs reads the table).
 */
export declare const defer: typeof DeferModule.defer;
export declare const forkJoin: typeof ForkJoinModule.forkJoin;
export declare const from: typeof FromModule.from;
export declare const interval: typeof IntervalModule.interval;
export declare const merge: typeof MergeModule.merge;
export declare const of: typeof OfModule.of;
export declare const race: typeof RaceModule.race;
export declare const throwError: typeof ThrowErrorModule.throwError;
export declare const timer: typeof TimerModule.timer;
export declare const catchError: typeof CatchErrorModule.catchError;
export declare const concatMap: typeof ConcatMapModule.concatMap;
export declare const exhaustMap: typeof ExhaustMapModule.exhaustMap;
export declare const filter: typeof FilterModule.filter;
export declare const finalize: typeof FinalizeModule.finalize;
export declare const last: typeof LastModule.last;
export declare const map: typeof MapModule.map;
export declare const share: typeof ShareModule.share;
export declare const skip: typeof SkipModule.skip;
export declare const switchMap: typeof SwitchMapModule.switchMap;
export declare const take: typeof TakeModule.take;
export declare const takeUntil: typeof TakeUntilModule.takeUntil;
export declare const tap: typeof TapModule.tap;
export declare const toArray: typeof ToArrayModule.toArray;

/* eslint-disable @typescript-eslint/no-require-imports */
const LAZY: Record<string, () => unknown> = {
  defer: () => require('rxjs/internal/observable/defer') as typeof DeferModule,
  forkJoin: () => require('rxjs/internal/observable/forkJoin') as typeof ForkJoinModule,
  from: () => require('rxjs/internal/observable/from') as typeof FromModule,
  interval: () => require('rxjs/internal/observable/interval') as typeof IntervalModule,
  merge: () => require('rxjs/internal/observable/merge') as typeof MergeModule,
  of: () => require('rxjs/internal/observable/of') as typeof OfModule,
  race: () => require('rxjs/internal/observable/race') as typeof RaceModule,
  throwError: () => require('rxjs/internal/observable/throwError') as typeof ThrowErrorModule,
  timer: () => require('rxjs/internal/observable/timer') as typeof TimerModule,
  catchError: () => require('rxjs/internal/operators/catchError') as typeof CatchErrorModule,
  concatMap: () => require('rxjs/internal/operators/concatMap') as typeof ConcatMapModule,
  exhaustMap: () => require('rxjs/internal/operators/exhaustMap') as typeof ExhaustMapModule,
  filter: () => require('rxjs/internal/operators/filter') as typeof FilterModule,
  finalize: () => require('rxjs/internal/operators/finalize') as typeof FinalizeModule,
  last: () => require('rxjs/internal/operators/last') as typeof LastModule,
  map: () => require('rxjs/internal/operators/map') as typeof MapModule,
  share: () => require('rxjs/internal/operators/share') as typeof ShareModule,
  skip: () => require('rxjs/internal/operators/skip') as typeof SkipModule,
  switchMap: () => require('rxjs/internal/operators/switchMap') as typeof SwitchMapModule,
  take: () => require('rxjs/internal/operators/take') as typeof TakeModule,
  takeUntil: () => require('rxjs/internal/operators/takeUntil') as typeof TakeUntilModule,
  tap: () => require('rxjs/internal/operators/tap') as typeof TapModule,
  toArray: () => require('rxjs/internal/operators/toArray') as typeof ToArrayModule,
};
/* eslint-enable @typescript-eslint/no-require-imports */

for (const [name, load] of Object.entries(LAZY)) {
  Object.defineProperty(exports, name, {
    enumerable: true,
    configurable: true,
    get: () => {
      const value = (load() as Record<string, unknown>)[name];
      Object.defineProperty(exports, name, { enumerable: true, value });
      return value;
    },
  });
}
