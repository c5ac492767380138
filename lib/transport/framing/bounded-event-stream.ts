/**
 * A size bound on an event stream read through someone else's parser (the `eventsource` package
 * reads the HTTP+SSE client's stream): the body passes through unchanged, but an event whose bytes
 * outgrow the bound errors the body, so the parser never buffers it (#13).
 */
import { SseEventTooLargeError } from './sse';

const LF = 10;
const CR = 13;

/**
 * Returns `response` with its body passed through a counter of the bytes since the last blank line
 * (LF, CR or CRLF line ends). Past `maxEventBytes` the body errors with
 * {@link SseEventTooLargeError} and `onTooLarge` runs once.
 */
export function boundEventStream(response: Response, maxEventBytes: number, onTooLarge: () => void): Response {
  if (!response.body || !Number.isFinite(maxEventBytes)) return response;
  let run = 0;
  let lineEnds = 0;
  let previous = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i] as number;
        if (byte === LF) {
          // The LF of a CRLF ends no second line.
          if (previous !== CR) lineEnds++;
        } else if (byte === CR) lineEnds++;
        else lineEnds = 0;
        previous = byte;
        if (lineEnds >= 2) run = 0;
        else if (++run > maxEventBytes) {
          onTooLarge();
          controller.error(new SseEventTooLargeError(maxEventBytes));
          return;
        }
      }
      controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(counter), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
