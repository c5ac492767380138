/**
 * An XState inspection event (xstate's `InspectionEvent`), by the fields every kind has. Declared
 * here, in a layer every other may import, so that the options of connections, servers, clients and
 * HTTP endpoints can take an inspector, and so that the public declarations do not load xstate's,
 * which do not type-check under `exactOptionalPropertyTypes`.
 */
export interface LifecycleInspectionEvent {
  readonly type: `@xstate.${string}`;
  readonly rootId: string;
  readonly actorRef: unknown;
  /** What `@xstate.event` and `@xstate.snapshot` events carry. */
  readonly event?: unknown;
  /** What `@xstate.snapshot` events carry. */
  readonly snapshot?: unknown;
}

/**
 * An observer of inspection events, as XState's `Observer<InspectionEvent>`: what `inspect` of an
 * inspector from `@statelyai/inspect` is. Only `next` is called. Methods, so that an observer typed
 * with xstate's `InspectionEvent` is accepted as it is.
 */
export interface InspectionObserver {
  /** Receives each inspection event. */
  next?(event: LifecycleInspectionEvent): void;
  /** Part of the observer shape of `@statelyai/inspect` and RxJS. */
  error?(error: unknown): void;
  /** Part of the observer shape of `@statelyai/inspect` and RxJS. */
  complete?(): void;
}

/**
 * A function that receives inspection events. Declared through a method, so that its parameter is
 * checked both ways and a function typed with xstate's `InspectionEvent` is accepted as it is.
 */
export type InspectionCallback = {
  /** Receives one inspection event. */
  bivariant(event: LifecycleInspectionEvent): void;
}['bivariant'];

/**
 * What an `inspect` option takes, as XState's `createActor` does: a function called with each
 * inspection event, or an observer whose `next` is (such as `inspector.inspect` from
 * `@statelyai/inspect`).
 */
export type LifecycleInspector = InspectionCallback | InspectionObserver;
