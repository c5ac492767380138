/**
 * Reading a transport's inbox and close signal with no subscription between them and the reader.
 *
 * A subscription costs a reader a `SafeSubscriber` and its inner observer, twice per transport
 * (frames and close), held for the transport's whole life. The inbox and close signal every
 * built-in transport is made of also take one reader directly: the connection reads them so, and
 * subscribes as before to a transport whose streams are anything else. Internal: the symbol is
 * not exported from any entry.
 */

/** The method of an inbox or close signal that takes its direct reader (`undefined`: the reader stops). */
export const readDirectly: unique symbol = Symbol('rxmcp.readDirectly');

/** What an inbox hands its values to, read directly: the two calls an observer would get. */
export interface DirectValueReader<T> {
  next(value: T): void;
  complete(): void;
}

/** What a close signal hands its one value to, read directly. */
export interface DirectCloseReader<T> {
  closedWith(value: T): void;
}

/** A source that can be read directly by a reader of type `R`. */
export interface DirectlyReadable<R> {
  [readDirectly](reader: R | undefined): void;
}

/** Whether `source` (an Observable) can be read directly. */
export function isDirectlyReadable<R>(source: object): source is DirectlyReadable<R> {
  return typeof (source as Partial<DirectlyReadable<R>>)[readDirectly] === 'function';
}
