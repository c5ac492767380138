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
  /** The principal of the caller that opened it (`principalOf`); '' when no `auth` checked it. */
  readonly principal: string;
}

/** What a process keeps of each session it owns, to write its record again when Redis lost it. */
interface OwnedRecord {
  readonly principal: string;
  epoch: number;
  /** The persisted state's JSON; '' before the session persisted any. */
  state: string;
}

// Reads a session's record, refreshes its expiry (and its events'), and reads its owner's heartbeat.
const LOOKUP = `
local h = redis.call('HMGET', KEYS[1], 'owner', 'state', 'principal')
if not h[1] then return false end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
local url = false
if h[1] ~= '' then url = redis.call('GET', ARGV[2] .. h[1]) end
return {h[1], url or '', h[2] or '', h[3] or ''}
`;

// Takes a session over from `expected` (its owner, gone) for the caller whose principal is ARGV[3]:
// the new epoch numbers its streams; -1 when another process took it first, -2 when the session
// belongs to another principal (nothing is changed then).
const CLAIM = `
local h = redis.call('HMGET', KEYS[1], 'owner', 'principal')
if h[1] ~= ARGV[1] then return -1 end
if (h[2] or '') ~= ARGV[3] then return -2 end
redis.call('HSET', KEYS[1], 'owner', ARGV[2])
return redis.call('HINCRBY', KEYS[1], 'epoch', 1)
`;

// Writes again the record of a session this process serves, when Redis lost it (restarted empty):
// only when no record is there (another process may have taken it over since). 1 when written.
const REVIVE = `
if redis.call('HEXISTS', KEYS[1], 'owner') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'epoch', ARGV[2], 'principal', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'state', ARGV[4]) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

// Records a new session (KEYS[1]) for the principal ARGV[2]; with a quota (ARGV[4] > 0), first counts
// the principal's live sessions in its set (KEYS[2], members whose record is gone are dropped) and
// records nothing (returns 0) when it has ARGV[4] already.
const REGISTER = `
local max = tonumber(ARGV[4])
if max > 0 then
  local live = 0
  for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do
    if redis.call('EXISTS', ARGV[5] .. id) == 1 then live = live + 1 else redis.call('SREM', KEYS[2], id) end
  end
  if live >= max then return 0 end
  redis.call('SADD', KEYS[2], ARGV[6])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'epoch', 0, 'principal', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

// Writes a session's persisted state into its record; 0 when the record is gone (nothing written).
const PERSIST = `
if redis.call('HEXISTS', KEYS[1], 'owner') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

// Gives up a session this process owns, so that another takes it over at once.
const RELEASE = `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then redis.call('HSET', KEYS[1], 'owner', '') end
return 1
`;

/**
 * The sessions of a cluster in Redis: each a hash (`<prefix>s:<id>`) with its owner process, its
 * epoch (how many times it was taken over), the principal of the caller that opened it and its
 * persisted state, expiring after `ttlMs` without a request; and the heartbeats that say which
 * processes are alive. A registry also remembers the records of the sessions its process owns, so
 * that it can write them again when Redis comes back without them ({@link SessionRegistry.revive}).
 */
export class SessionRegistry {
  private readonly owned = new Map<string, OwnedRecord>();

  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: ClusterKeys,
    private readonly ttlMs: number,
    /** This process's id: the owner of the records it writes again. */
    private readonly processId: string,
    /** The most sessions one principal may hold at once in the cluster; 0: no limit. */
    private readonly maxPerPrincipal = 0,
  ) {}

  /**
   * Records a new session owned by this process and opened by `principal` ('' without auth), before
   * its id is given to the client. False when the principal holds its quota of sessions already
   * (nothing is recorded then); a caller without a principal has no quota.
   */
  async register(sessionId: string, principal: string): Promise<boolean> {
    const max = principal === '' ? 0 : this.maxPerPrincipal;
    const keys = [this.keys.session(sessionId), this.keys.principalSessions(principal)];
    const args = [REGISTER, 2, ...keys, this.processId, principal, this.ttlMs, max, this.keys.session(''), sessionId];
    if (Number(await this.redis.call('EVAL', args)) === 0) return false;
    this.owned.set(sessionId, { principal, epoch: 0, state: '' });
    return true;
  }

  /** The principal of a session this process owns ('' without auth); undefined for another session. */
  principalOf(sessionId: string): string | undefined {
    return this.owned.get(sessionId)?.principal;
  }

  async lookup(sessionId: string): Promise<SessionRecord | undefined> {
    const keys = [this.keys.session(sessionId), this.keys.events(sessionId)];
    const found = (await this.redis.call('EVAL', [LOOKUP, 2, ...keys, this.ttlMs, this.keys.processPrefix])) as
      [string, string, string, string?] | null;
    if (!found) return undefined;
    const [owner, url, state, principal] = found;
    return { owner, ownerUrl: url === '' ? undefined : url, state: parseState(state), principal: principal ?? '' };
  }

  /**
   * Takes the session over from `expected` for a caller whose principal is `principal`: the new
   * epoch; `'taken'` when another process took it first; `'forbidden'` when it belongs to another
   * principal (then nothing changed in Redis).
   */
  async claim(
    sessionId: string,
    expected: string,
    owner: string,
    principal: string,
    state: PersistedSession,
  ): Promise<number | 'taken' | 'forbidden'> {
    const key = this.keys.session(sessionId);
    const epoch = Number(await this.redis.call('EVAL', [CLAIM, 1, key, expected, owner, principal]));
    if (epoch === -2) return 'forbidden';
    if (epoch < 0) return 'taken';
    this.owned.set(sessionId, { principal, epoch, state: JSON.stringify(state) });
    return epoch;
  }

  /** Writes the session's state into its record (the whole record again when Redis lost it). */
  async persist(sessionId: string, state: PersistedSession): Promise<void> {
    const text = JSON.stringify(state);
    const mine = this.owned.get(sessionId);
    if (mine) mine.state = text;
    const written = await this.redis.call('EVAL', [PERSIST, 1, this.keys.session(sessionId), text, this.ttlMs]);
    if (Number(written) === 0) await this.reviveOne(sessionId);
  }

  /** Deletes the session and its events (it ended). */
  async forget(sessionId: string): Promise<void> {
    const principal = this.owned.get(sessionId)?.principal;
    this.owned.delete(sessionId);
    const calls = [this.redis.call('DEL', [this.keys.session(sessionId), this.keys.events(sessionId)])];
    if (this.maxPerPrincipal > 0 && principal)
      calls.push(this.redis.call('SREM', [this.keys.principalSessions(principal), sessionId]));
    await Promise.all(calls);
  }

  /**
   * Keeps the records of sessions alive (their owner serves them, maybe on a long stream); a record
   * that is gone (Redis restarted empty) is written again. Forgets what it kept of sessions this
   * process no longer serves.
   */
  async touch(sessionIds: Iterable<string>): Promise<void> {
    const live = new Set(sessionIds);
    for (const id of this.owned.keys()) if (!live.has(id)) this.owned.delete(id);
    const calls: Promise<unknown>[] = [];
    if (this.maxPerPrincipal > 0) {
      // The quota's sets live as long as the sessions they count.
      const principals = new Set([...live].map((id) => this.owned.get(id)?.principal ?? ''));
      for (const principal of principals)
        if (principal !== '')
          calls.push(this.redis.call('PEXPIRE', [this.keys.principalSessions(principal), this.ttlMs]));
    }
    for (const id of live) {
      calls.push(
        this.redis.call('PEXPIRE', [this.keys.session(id), this.ttlMs]).then((kept) => {
          if (Number(kept) === 0) return this.reviveOne(id);
          return undefined;
        }),
      );
      calls.push(this.redis.call('PEXPIRE', [this.keys.events(id), this.ttlMs]));
    }
    await Promise.all(calls);
  }

  /**
   * Writes again the records of the sessions this process serves that Redis lost (after it restarted
   * empty), with their principal, epoch and state; a record another process wrote since is left
   * alone. Resolves with how many were written.
   */
  async revive(sessionIds: Iterable<string>): Promise<number> {
    const written = await Promise.all([...sessionIds].map((id) => this.reviveOne(id)));
    return written.filter(Boolean).length;
  }

  private async reviveOne(sessionId: string): Promise<boolean> {
    const mine = this.owned.get(sessionId);
    if (!mine) return false;
    const key = this.keys.session(sessionId);
    const args = [REVIVE, 1, key, this.processId, mine.epoch, mine.principal, mine.state, this.ttlMs];
    const written = Number(await this.redis.call('EVAL', args)) === 1;
    if (written && this.maxPerPrincipal > 0 && mine.principal !== '') {
      const set = this.keys.principalSessions(mine.principal);
      await Promise.all([this.redis.call('SADD', [set, sessionId]), this.redis.call('PEXPIRE', [set, this.ttlMs])]);
    }
    return written;
  }

  /** Gives up the sessions `owner` serves: another process takes each over on its next request. */
  async release(sessionIds: Iterable<string>, owner: string): Promise<void> {
    const ids = [...sessionIds];
    for (const id of ids) this.owned.delete(id);
    await Promise.all(ids.map((id) => this.redis.call('EVAL', [RELEASE, 1, this.keys.session(id), owner])));
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
