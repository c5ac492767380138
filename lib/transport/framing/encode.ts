import { MessageEncodingError } from '../../jsonrpc/errors';

/**
 * The JSON text of an outgoing message (or batch), as every transport writes it. Throws a
 * {@link MessageEncodingError} for a value `JSON.stringify` cannot write: a cycle, a `BigInt`, a
 * top-level `undefined` or function, or nesting deeper than the engine's stack (a peer's deeply
 * nested params passed on by a proxy). A transport calls it in `send` itself, before anything is
 * queued, so that the message is refused alone and the transport goes on.
 */
export function encodeMessage(message: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(message) as string | undefined;
  } catch (error) {
    // Out of stack: nested too deeply. Another RangeError ("Invalid string length": too large) says its own.
    const deep = error instanceof RangeError && /call stack/i.test(error.message);
    const why = deep ? 'it is nested too deeply' : (error as Error).message;
    throw new MessageEncodingError(`The message could not be encoded as JSON: ${why}`, { cause: error });
  }
  if (json === undefined) {
    throw new MessageEncodingError(`The message could not be encoded as JSON: a value of type ${typeof message}`);
  }
  return json;
}
