import type pino from 'pino';
import type { HttpRequester } from '../http-requester';

/** How long close waits for the answer to its DELETE. */
const DELETE_TIMEOUT_MS = 2000;

/**
 * Ends the client's session on the server (spec: Transports → Session Management: a client that
 * no longer needs the session SHOULD DELETE it), then calls `done` once the DELETE was answered,
 * failed, or went unanswered for 2 s.
 */
export function deleteSession(
  requester: HttpRequester,
  headers: Record<string, string>,
  log: pino.Logger,
  done: () => void,
): void {
  const deletion = requester.request({ method: 'DELETE', headers });
  const timeout = setTimeout(() => deletion.abort(), DELETE_TIMEOUT_MS);
  // Node's timers can stop holding the process open; a browser's are plain numbers.
  (timeout as { unref?: () => void }).unref?.();
  deletion.answer
    .then((response) => {
      log.debug({ status: response.status }, 'DELETE answered');
      response.discard();
    })
    .catch((failure: unknown) => log.debug({ err: failure }, 'DELETE failed'))
    .finally(() => {
      clearTimeout(timeout);
      done();
    });
}
