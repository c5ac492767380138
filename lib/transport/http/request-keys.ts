/**
 * Request ids as map keys, on both sides of Streamable HTTP: a key tells `1` from `"1"`, and gives
 * back the id it was made from.
 */
import type { RequestId } from '../../jsonrpc/message';

/** The key a request id is filed under: numbers and strings never collide. */
export const keyOf = (id: RequestId): string => (typeof id === 'number' ? `n${id}` : `s${id}`);

/** The request id a {@link keyOf} key was made from. */
export const idOfKey = (key: string): RequestId => (key.startsWith('n') ? Number(key.slice(1)) : key.slice(1));
