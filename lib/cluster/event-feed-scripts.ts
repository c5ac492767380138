/**
 * The Lua scripts of shared event feeds and what their replies mean. A feed is four keys with one
 * hash tag (one slot of a Redis Cluster): its stream of occurrences (entry ids `<position>-0`), its
 * sequence (the last position given), its leader (the process that follows its source) and its
 * `wanted` mark (some process polled it or listens to it lately). The scripts that write
 * occurrences are fenced on the leader key: a process that lost the lease writes nothing.
 */
import { isRecord } from '../base/objects';
import { EventsTerminated } from '../server/events/event-feed';
import type { FeedEntry } from '../server/events/event-feed';

/** The keys of one feed, in the order the scripts take them. */
export interface FeedKeys {
  readonly stream: string;
  readonly seq: string;
  readonly leader: string;
  readonly wanted: string;
}

// Marks the feed wanted for ARGV[5] ms, takes the lead for ARGV[3] (for ARGV[4] ms) when nobody
// holds it, keeps the occurrences as long as the mark, and reads after position ARGV[1] (-1: none)
// at most ARGV[2] entries. Answers {1 when ARGV[3] leads, the last position, the entries}.
export const READ = `
redis.call('SET', KEYS[4], '1', 'PX', ARGV[5])
local lead = 0
local holder = redis.call('GET', KEYS[3])
if not holder then
  redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4])
  lead = 1
elseif holder == ARGV[3] then
  lead = 1
end
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if last > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
end
local after = tonumber(ARGV[1])
if after < 0 or after >= last then return {lead, last, {}} end
return {lead, last, redis.call('XRANGE', KEYS[1], (after + 1) .. '-0', '+', 'COUNT', ARGV[2])}
`;

// The leader ARGV[1] appends the occurrence ARGV[5] at the next position, the stream trimmed to
// ARGV[2] entries and kept ARGV[3] ms; ARGV[4] = '1' first leaves a position empty (occurrences
// were lost: a reader across it reads truncated). Answers the position, or 0 when ARGV[1] does not
// lead (nothing written).
export const APPEND = `
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return 0 end
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then redis.call('INCR', KEYS[2]) end
local n = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], n .. '-0', 'o', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return n
`;

// The leader ARGV[1] starts following the source: when the feed was followed before, a position
// is left empty for what its source did unfollowed. Answers that position, 0 for a new feed, -1
// when ARGV[1] does not lead.
export const MARK = `
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return -1 end
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
return redis.call('INCR', KEYS[2])
`;

// The leader ARGV[1] keeps the lead ARGV[2] ms more while the feed is wanted; ARGV[4] = '1' (it has
// listeners of its own) marks it wanted for ARGV[3] ms and keeps its occurrences as long. Answers
// 1; 0 when nobody wants it any more (the lead is given up); -1 when ARGV[1] does not lead.
export const RENEW = `
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return -1 end
if ARGV[4] == '1' then
  redis.call('SET', KEYS[4], '1', 'PX', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
elseif redis.call('EXISTS', KEYS[4]) == 0 then
  redis.call('DEL', KEYS[3])
  return 0
end
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return 1
`;

// The leader ARGV[1] gives up the lead, so that another process takes it at once.
export const RELEASE = `
if redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
return 1
`;

/** What an occurrence keeps in the stream: its id when the source gave one, its time and data. */
export interface StoredOccurrence {
  readonly eventId?: string;
  readonly timestamp: string;
  readonly data: Record<string, unknown>;
}

/** A read's reply: whether this process leads, the last position, and the entries read. */
export interface ReadReply {
  readonly lead: boolean;
  readonly last: number;
  /** The occurrences read, up to the termination entry when the read reached one. */
  readonly entries: readonly FeedEntry[];
  /** The source ended its subscriptions at `position` (the leader appended why): readers from before it end. */
  readonly ended?: { readonly position: number; readonly error: EventsTerminated };
}

/** What the leader appends when the source ends its subscriptions: `{"terminated": <error object>}`. */
export const terminationEntry = (error: EventsTerminated): string => JSON.stringify({ terminated: error.toJSON() });

/** The termination a stream entry holds; undefined when it holds something else. */
function endedOf(raw: unknown): ReadReply['ended'] {
  if (!Array.isArray(raw) || typeof raw[0] !== 'string' || !Array.isArray(raw[1])) return undefined;
  const fields: unknown[] = raw[1];
  const text = fields[fields.indexOf('o') + 1];
  if (typeof text !== 'string' || !text.startsWith('{"terminated":')) return undefined;
  try {
    const { terminated } = JSON.parse(text) as { terminated: unknown };
    if (!isRecord(terminated) || typeof terminated.code !== 'number' || typeof terminated.message !== 'string')
      return undefined;
    const position = Number(raw[0].slice(0, raw[0].indexOf('-')));
    return { position, error: new EventsTerminated(terminated.code, terminated.message, terminated.data) };
  } catch {
    return undefined;
  }
}

/** The entry a stream entry `[id, [field, value, ...]]` holds for event type `name`; undefined when malformed. */
export function entryOf(raw: unknown, name: string): FeedEntry | undefined {
  if (!Array.isArray(raw) || typeof raw[0] !== 'string' || !Array.isArray(raw[1])) return undefined;
  const position = Number(raw[0].slice(0, raw[0].indexOf('-')));
  const fields: unknown[] = raw[1];
  const at = fields.indexOf('o');
  const text = at >= 0 ? fields[at + 1] : undefined;
  if (!Number.isSafeInteger(position) || typeof text !== 'string') return undefined;
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(stored) || !isRecord(stored.data) || typeof stored.timestamp !== 'string') return undefined;
  const eventId = typeof stored.eventId === 'string' ? stored.eventId : `${name}-${position}`;
  return { position, occurrence: { eventId, name, timestamp: stored.timestamp, data: stored.data } };
}

/**
 * A READ reply for event type `name`; throws on a reply of another shape. `malformed` hears each
 * entry that is not an occurrence (it is skipped). A termination entry ends the entries read.
 */
export function readReplyOf(reply: unknown, name: string, malformed: (raw: unknown) => void): ReadReply {
  if (!Array.isArray(reply) || reply.length !== 3 || !Array.isArray(reply[2]))
    throw new Error('unexpected reply of the events store script');
  const entries: FeedEntry[] = [];
  const read = { lead: Number(reply[0]) === 1, last: Number(reply[1]), entries };
  for (const raw of reply[2] as unknown[]) {
    const ended = endedOf(raw);
    if (ended) return { ...read, ended };
    const entry = entryOf(raw, name);
    if (entry) entries.push(entry);
    else malformed(raw);
  }
  return read;
}
