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
 * Loaded on first read in the CommonJS build: a connection's per-call path reads none of the
 * creators and operators below, and their 60 modules took about 12 ms of every start. After the
 * build, scripts/lazy-rxjs.cjs gives each of them a getter that loads its module and then leaves
 * the value in its place. The ES module build, and code compiled from these sources, import them
 * as they are.
 */
export { defer } from 'rxjs/internal/observable/defer';
export { forkJoin } from 'rxjs/internal/observable/forkJoin';
export { from } from 'rxjs/internal/observable/from';
export { interval } from 'rxjs/internal/observable/interval';
export { merge } from 'rxjs/internal/observable/merge';
export { of } from 'rxjs/internal/observable/of';
export { race } from 'rxjs/internal/observable/race';
export { throwError } from 'rxjs/internal/observable/throwError';
export { timer } from 'rxjs/internal/observable/timer';

export { catchError } from 'rxjs/internal/operators/catchError';
export { concatMap } from 'rxjs/internal/operators/concatMap';
export { exhaustMap } from 'rxjs/internal/operators/exhaustMap';
export { filter } from 'rxjs/internal/operators/filter';
export { finalize } from 'rxjs/internal/operators/finalize';
export { last } from 'rxjs/internal/operators/last';
export { map } from 'rxjs/internal/operators/map';
export { share } from 'rxjs/internal/operators/share';
export { skip } from 'rxjs/internal/operators/skip';
export { switchMap } from 'rxjs/internal/operators/switchMap';
export { take } from 'rxjs/internal/operators/take';
export { takeUntil } from 'rxjs/internal/operators/takeUntil';
export { tap } from 'rxjs/internal/operators/tap';
export { toArray } from 'rxjs/internal/operators/toArray';
