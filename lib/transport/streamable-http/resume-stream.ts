import type { HttpResponseLike } from '../http/http-exchange';
import type { EventStore } from './event-store';
import { answerError, openSse } from './session-stream';
import type { Payload, SessionStream } from './session-stream';
import type { SessionStreams } from './session-streams';

/**
 * Serves a GET with `Last-Event-ID`: replays the stream of that event after it from the event
 * store, then carries on with the stream while it is open (a stream that ended is ended again
 * after its replay). A `Last-Event-ID` the store does not know, or that belongs to another
 * session, answers 400. Nothing is answered once the session is closed.
 */
export function resumeStream(
  streams: SessionStreams,
  session: { readonly closed: boolean },
  res: HttpResponseLike,
  lastEventId: string,
  headers: Record<string, string>,
): void | Promise<void> {
  const replayed: Array<{ eventId: string; payload: Payload }> = [];
  const replay = (streams.options.eventStore as EventStore).replayAfter(lastEventId, (eventId, payload) =>
    replayed.push({ eventId, payload }),
  );
  const finishResume = (streamId: string | undefined): void => {
    if (session.closed) return;
    if (streamId === undefined || !streamId.startsWith(streams.prefix)) {
      answerError(res, 400, headers, -32000, 'Bad Request: unknown Last-Event-ID');
      return;
    }
    openSse(res, headers);
    const live = streams.byId.get(streamId);
    // The resumed stream replaces its previous connection, if one is somehow still open.
    if (live?.res) live.res.end();
    const target: SessionStream = live ?? {
      id: streamId,
      res: undefined,
      pending: new Set(),
      requestHeaders: undefined,
    };
    streams.attach(target, res);
    if (target === streams.standalone) streams.held = [];
    for (const { eventId, payload } of replayed) streams.writeEvent(target, eventId, JSON.stringify(payload), true);
    streams.options.logger.debug({ stream: streamId, replayed: replayed.length }, 'stream resumed');
    // A stream that ended has nothing more to say.
    if (!live && !res.writableEnded) res.end();
  };
  return replay instanceof Promise ? replay.then(finishResume) : finishResume(replay);
}
