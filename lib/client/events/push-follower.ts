/**
 * Following an event type by push (design sketch: Push-Based Delivery): one `events/stream`
 * request, its notifications turned into occurrences, its cursor kept, and a stream that is silent
 * for more than twice the heartbeat interval opened again from the last cursor.
 */
import { isRecord } from '../../base/objects';
import { Observable } from '../../rx/rxjs';
import type { SchedulerLike, Subscription } from '../../rx/rxjs';
import { ProtocolError } from '../../jsonrpc/errors';
import type { JsonRpcError } from '../../jsonrpc/errors';
import { EventMethod } from '../../schema/events';
import type { EventOccurrence } from '../../schema/events';
import type { McpClient } from '../client-api';
import { pushRouterOf } from './push-router';
import type { PushMessage } from './push-router';
import { SeenIds } from './seen-ids';
import { eventErrorOf } from './event-errors';

/** What a push follower needs beside the client. */
export interface PushFollow {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly cursor: string | null;
  /** Occurrences older than this are not replayed (`maxAgeMs` of `events/stream`). */
  readonly maxAgeMs?: number;
  /** The server's heartbeat interval: a stream silent for twice as long is dead. */
  readonly heartbeatMs: number;
  /** The wait before opening a stream again after the server ended it. */
  readonly reopenMs: number;
  readonly scheduler: SchedulerLike;
  readonly onCursor?: (cursor: string | null) => void;
  readonly onTruncated?: () => void;
  readonly onStreamError?: (error: JsonRpcError) => void;
}

/** An occurrence as the stream sent it, without the stream's `_meta`. */
function occurrenceOf(params: Record<string, unknown>): EventOccurrence {
  const { _meta: _ignored, ...occurrence } = params;
  if (typeof occurrence.eventId !== 'string' || !isRecord(occurrence.data))
    throw new ProtocolError('notifications/events/event carried no valid occurrence');
  return occurrence as unknown as EventOccurrence;
}

/**
 * The occurrences of one subscription by push: cold (subscribing opens the stream, unsubscribing
 * cancels it), never completing on its own, erroring with the stream's request error (-32011,
 * -32014 ...) or with `notifications/events/terminated`'s error.
 */
export function followByPush(client: McpClient, follow: PushFollow): Observable<EventOccurrence> {
  return new Observable<EventOccurrence>((subscriber) => {
    const router = pushRouterOf(client);
    const seen = new SeenIds();
    let cursor = follow.cursor;
    let stream: Subscription | undefined;
    let timer: Subscription | undefined;
    const keep = (next: unknown) => {
      if (next !== null && typeof next !== 'string') return;
      cursor = next;
      follow.onCursor?.(cursor);
    };
    const handle = (message: PushMessage) => {
      const { method, params } = message;
      if (method === EventMethod.Event) {
        const occurrence = occurrenceOf(params);
        keep(occurrence.cursor);
        if (seen.first(occurrence.eventId)) subscriber.next(occurrence);
      } else if (method === EventMethod.Active) {
        keep(params.cursor);
        if (params.truncated === true) follow.onTruncated?.();
      } else if (method === EventMethod.Heartbeat) keep(params.cursor);
      else if (method === EventMethod.Error) follow.onStreamError?.(eventErrorOf(params.error, 'event stream error'));
      else if (method === EventMethod.Terminated) subscriber.error(eventErrorOf(params.error, 'event stream ended'));
    };
    const wait = (delay: number) => {
      timer?.unsubscribe();
      timer = follow.scheduler.schedule(open, delay);
    };
    function open(): void {
      stream?.unsubscribe();
      wait(2 * follow.heartbeatMs);
      const params = { name: follow.name, arguments: follow.args, cursor };
      stream = router
        .open(follow.maxAgeMs === undefined ? params : { ...params, maxAgeMs: follow.maxAgeMs })
        .subscribe({
          next: (message) => {
            wait(2 * follow.heartbeatMs);
            try {
              handle(message);
            } catch (error) {
              subscriber.error(error);
            }
          },
          error: (error: unknown) => subscriber.error(error),
          // The server ended the stream (design sketch: Reconnection): open it again from the cursor.
          complete: () => wait(follow.reopenMs),
        });
    }
    open();
    return () => {
      timer?.unsubscribe();
      stream?.unsubscribe();
    };
  });
}
