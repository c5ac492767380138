import type { PersistedSession } from '../server/server-context';
import type { ClusterKeys } from './cluster-keys';
import type { RedisConnection } from './redis-connection';

/** A session's record in Redis, as a process looking it up sees it. */
export interface SessionRecord {
  /** The process that serves it ('' when its process left and nobody took it over yet). */
  readonly owner: string;
  /** The owner's endpoint URL while its heartbeat lives; undefined when it is gone. */
  readonly ownerUrl: string | undefined;
  /** What the session persisted once initialized; undefined before. */
  readonly state: PersistedSession | undefined;
}

// Reads a session's record, refreshes its expiry (and its events'), and reads its owner's heartbeat.
const LOOKUP = `
local h = redis.call('HMGET', KEYS[1], 'owner', 'state')
if not h[1] then return false end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
local url = false
if h[1] ~= '' then url = redis.call('GET', ARGV[2] .. h[1]) end
return {h[1], url or '', h[2] or ''}
`;

// Takes a session over from `expected` (its owner, gone): the new epoch numbers its streams; -1 when
// another process took it first.
const CLAIM = `
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner ~= ARGV[1] then return -1 end
redis.call('HSET', KEYS[1], 'owner', ARGV[2])
return redis.call('HINCRBY', KEYS[1], 'epoch', 1)
`;

// Gives up a session this process owns, so that another takes it over at once.
const RELEASE = `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then redis.call('HSET', KEYS[1], 'owner', '') end
return 1
`;

/**
 * The sessions of a cluster in Redis: each a hash (`<prefix>s:<id>`) with its owner process, its
 * epoch (how many times it was taken over) and its persisted state, expiring after `ttlMs`
 * without a request; and the heartbeats that say which processes are alive.
 */
export class SessionRegistry {
  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: ClusterKeys,
    private readonly ttlMs: number,
  ) {}

  /** Records a new session owned by `owner`, before its id is given to the client. */
  async register(sessionId: string, owner: string): Promise<void> {
    const key = this.keys.session(sessionId);
    await Promise.all([
      this.redis.call('HSET', [key, 'owner', owner, 'epoch', 0]),
      this.redis.call('PEXPIRE', [key, this.ttlMs]),
    ]);
  }

  async lookup(sessionId: string): Promise<SessionRecord | undefined> {
    const keys = [this.keys.session(sessionId), this.keys.events(sessionId)];
    const found = (await this.redis.call('EVAL', [LOOKUP, 2, ...keys, this.ttlMs, this.keys.processPrefix])) as
      [string, string, string] | null;
    if (!found) return undefined;
    const [owner, url, state] = found;
    return { owner, ownerUrl: url === '' ? undefined : url, state: parseState(state) };
  }

  /** Takes the session over from `expected`; the new epoch, or undefined when another process took it first. */
  async claim(sessionId: string, expected: string, owner: string): Promise<number | undefined> {
    const epoch = Number(await this.redis.call('EVAL', [CLAIM, 1, this.keys.session(sessionId), expected, owner]));
    return epoch < 0 ? undefined : epoch;
  }

  async persist(sessionId: string, state: PersistedSession): Promise<void> {
    const key = this.keys.session(sessionId);
    await Promise.all([
      this.redis.call('HSET', [key, 'state', JSON.stringify(state)]),
      this.redis.call('PEXPIRE', [key, this.ttlMs]),
    ]);
  }

  /** Deletes the session and its events (it ended). */
  async forget(sessionId: string): Promise<void> {
    await this.redis.call('DEL', [this.keys.session(sessionId), this.keys.events(sessionId)]);
  }

  /** Keeps the records of sessions alive (their owner serves them, maybe on a long stream). */
  async touch(sessionIds: Iterable<string>): Promise<void> {
    const calls: Promise<unknown>[] = [];
    for (const id of sessionIds) {
      calls.push(this.redis.call('PEXPIRE', [this.keys.session(id), this.ttlMs]));
      calls.push(this.redis.call('PEXPIRE', [this.keys.events(id), this.ttlMs]));
    }
    await Promise.all(calls);
  }

  /** Gives up the sessions `owner` serves: another process takes each over on its next request. */
  async release(sessionIds: Iterable<string>, owner: string): Promise<void> {
    await Promise.all([...sessionIds].map((id) => this.redis.call('EVAL', [RELEASE, 1, this.keys.session(id), owner])));
  }

  /** Says `processId` is alive at `url` for `ttlMs`. */
  async beat(processId: string, url: string, ttlMs: number): Promise<void> {
    await this.redis.call('SET', [this.keys.process(processId), url, 'PX', ttlMs]);
  }

  async leave(processId: string): Promise<void> {
    await this.redis.call('DEL', [this.keys.process(processId)]);
  }
}

function parseState(text: string): PersistedSession | undefined {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as PersistedSession;
  } catch {
    return undefined;
  }
}
