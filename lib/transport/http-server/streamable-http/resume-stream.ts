import type { HttpResponseLike } from '../../http/http-exchange';
import type { EventStore } from './event-store';
import { ErrorCode } from '../../../jsonrpc/errors';
import { errorResponse } from '../../../jsonrpc/message';
import type { RequestId } from '../../../jsonrpc/message';
import { answerError, openSse, responseIds } from './session-stream';
import type { Payload, SessionStream } from './session-stream';
import type { SessionStreams } from './session-streams';

/**
 * Serves a GET with `Last-Event-ID`: replays the stream of that event after it from the event
 * store, then carries on with the stream while it is open. A stream that ended is ended again after
 * its replay and the answers it still owed; one that has nothing more to say (nothing after that
 * event, nothing owed) answers 204, which tells the client to stop resuming it (as it tells an
 * `EventSource`): an empty stream would leave it with no event id to resume from, and some clients
 * then open another GET stream beside the one they have. A `Last-Event-ID` the store does not know,
 * or that belongs to another session, answers 400. Nothing is answered once the session is closed.
 */
export function resumeStream(
  streams: SessionStreams,
  session: { readonly closed: boolean },
  res: HttpResponseLike,
  lastEventId: string,
  headers: Record<string, string>,
): void | Promise<void> {
  const replayed: Replayed[] = [];
  const owns = (streamId: string): boolean => ownsStream(streams.prefix, streamId);
  // Held until the stream is known to be this session's: nothing of another session is written.
  const replay = (streams.options.eventStore as EventStore).replayAfter(
    lastEventId,
    (eventId, payload) => replayed.push({ eventId, payload }),
    owns,
  );
  const finishResume = (streamId: string | undefined): void | Promise<void> => {
    if (session.closed) return;
    if (streamId === undefined || !owns(streamId)) {
      replayed.length = 0;
      answerError(res, 400, headers, -32000, 'Bad Request: unknown Last-Event-ID');
      return;
    }
    const live = streams.byId.get(streamId);
    if (!live) return resumeEnded(streams, session, res, headers, streamId, replayed);
    openSse(res, headers);
    // The resumed stream replaces its previous connection, if one is somehow still open.
    if (live.res) live.res.end();
    streams.attach(live, res);
    if (live === streams.standalone) streams.held = [];
    for (const { eventId, payload } of replayed) streams.writeEvent(live, eventId, JSON.stringify(payload), true);
    streams.options.logger.debug({ stream: streamId, replayed: replayed.length }, 'stream resumed');
  };
  return replay instanceof Promise ? replay.then(finishResume) : finishResume(replay);
}

/** An event of a replay. */
interface Replayed {
  readonly eventId: string;
  readonly payload: Payload;
}

/**
 * Resumes a stream that no longer runs here (it ended, or its process is gone): its replay, then an
 * error for each request it carried that the replay does not answer (its process died before), and
 * its end; 204 when there is neither.
 */
function resumeEnded(
  streams: SessionStreams,
  session: { readonly closed: boolean },
  res: HttpResponseLike,
  headers: Record<string, string>,
  streamId: string,
  replayed: readonly Replayed[],
): void | Promise<void> {
  const store = streams.options.eventStore as EventStore;
  const answer = (ids: readonly RequestId[] | undefined): void | Promise<void> => {
    if (session.closed) return;
    const answered = new Set(replayed.flatMap(({ payload }) => responseIds(payload)));
    const owed = (ids ?? []).filter((id) => !answered.has(id));
    if (replayed.length === 0 && owed.length === 0) {
      streams.options.logger.debug({ stream: streamId }, 'resumed stream has ended: nothing more to send');
      res.writeHead(204, headers);
      res.end();
      return;
    }
    openSse(res, headers);
    const target: SessionStream = { id: streamId, res: undefined, pending: new Set(), requestHeaders: undefined };
    streams.attach(target, res);
    for (const { eventId, payload } of replayed) streams.writeEvent(target, eventId, JSON.stringify(payload), true);
    streams.options.logger.debug({ stream: streamId, replayed: replayed.length }, 'ended stream replayed');
    const end = (): void => {
      if (!res.writableEnded) res.end();
    };
    if (owed.length === 0) return end();
    return answerAbandoned(streams, target, owed).then(end);
  };
  const ids = store.requestsOf?.(streamId);
  return ids instanceof Promise ? ids.then(answer) : answer(ids);
}

/**
 * Whether `streamId` is one of the session's own streams: its prefix (`<session id>~`) followed by
 * a stream number and nothing else. A bare `startsWith` would take the streams of a session whose
 * id extends this one's (`a~1~0` for session `a`) as its own.
 */
export function ownsStream(prefix: string, streamId: string): boolean {
  if (!streamId.startsWith(prefix) || streamId.length === prefix.length) return false;
  for (let i = prefix.length; i < streamId.length; i++) {
    const code = streamId.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/**
 * A POST's stream that no process serves any more (its process died) owes responses to `owed`,
 * the requests it carried that its replay did not answer: each gets an error response, stored so
 * that a later resumption replays it too (and the stream is recorded as owing nothing). Needs an
 * event store that records a stream's requests.
 */
async function answerAbandoned(
  streams: SessionStreams,
  target: SessionStream,
  owed: readonly RequestId[],
): Promise<void> {
  const store = streams.options.eventStore as EventStore;
  streams.options.logger.warn({ stream: target.id, owed }, 'requests of a stopped process answered with an error');
  await Promise.all(
    owed.map(async (id) => {
      const message = errorResponse(id, {
        code: ErrorCode.InternalError,
        message: 'Internal error: the server process handling this request stopped; its result is lost',
      });
      streams.writeEvent(target, await store.storeEvent(target.id, message), JSON.stringify(message), true);
    }),
  );
  // Nothing is owed any more: a later resumption replays the errors and adds none.
  await store.storeRequests?.(target.id, []);
}
