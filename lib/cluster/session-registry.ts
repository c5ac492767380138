import { Subject } from '../rx/rxjs';
import type { Observable } from '../rx/rxjs';
import type { PersistedSession } from '../server/server-context';
import type { ClusterKeys } from './cluster-keys';
import type { RedisConnection } from './redis-connection';
import {
  APPEND,
  CLAIM,
  FORGET,
  FORGET_UNOWNED_EVENTS,
  KEEP_QUOTA,
  LOOKUP,
  PERSIST,
  REGISTER,
  RELEASE,
  REVIVE,
  TAKE_QUOTA,
  TOUCH,
  VERIFY,
} from './session-scripts';

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
  /** How many times it was taken over: each claim makes it one more, and fences the owners before. */
  readonly epoch: number;
  /** Where the cluster's event log was when the session opened (see `BusLog`). */
  readonly bus: string;
}

/** What a process keeps of each session it owns, to write its record again when Redis lost it. */
interface OwnedRecord {
  readonly principal: string;
  readonly epoch: number;
  /** The persisted state's JSON; '' before the session persisted any. */
  state: string;
}

/**
 * The sessions of a cluster in Redis: each a hash (`<prefix>s:{<id>}`) with its owner process, its
 * epoch (how many times it was taken over), the principal of the caller that opened it and its
 * persisted state, expiring after `ttlMs` without a request; and the heartbeats that say which
 * processes are alive. Every write an owner makes is fenced: it is refused when the record names
 * another owner or another epoch (another process took the session over), and the registry then
 * says so on {@link SessionRegistry.replaced$}, so that the process stops serving the session.
 * A registry also remembers the records of the sessions its process owns, so that it can write
 * them again when Redis comes back without them ({@link SessionRegistry.revive}).
 */
export class SessionRegistry {
  private readonly owned = new Map<string, OwnedRecord>();
  /**
   * Sessions this process owned and gave up (another took them over, or it released them): writes
   * still queued for them are refused, not taken for the unfenced writes of a stream of no session.
   * The most recent {@link DISOWNED_KEPT}; a session claimed here again leaves it.
   */
  private readonly disowned = new Set<string>();
  private readonly replaced = new Subject<string>();
  /** The ids of sessions this process owned until another took them over. Hot; never completes. */
  readonly replaced$: Observable<string> = this.replaced.asObservable();

  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: ClusterKeys,
    private readonly ttlMs: number,
    /** This process's id: the owner of the records it writes. */
    readonly processId: string,
    /** The most sessions one principal may hold at once in the cluster; 0: no limit. */
    private readonly maxPerPrincipal = 0,
  ) {}

  /**
   * Records a new session owned by this process and opened by `principal` ('' without auth), before
   * its id is given to the client. False when the principal holds its quota of sessions already
   * (nothing is recorded then); a caller without a principal has no quota.
   */
  async register(sessionId: string, principal: string, bus = '0-0'): Promise<boolean> {
    if (principal !== '' && this.maxPerPrincipal > 0) {
      const set = this.keys.principalSessions(principal);
      const taken = await this.redis.call('EVAL', [TAKE_QUOTA, 1, set, this.maxPerPrincipal, this.ttlMs, sessionId]);
      if (Number(taken) === 0) return false;
    }
    const key = this.keys.session(sessionId);
    await this.redis.call('EVAL', [REGISTER, 1, key, this.processId, principal, this.ttlMs, bus]);
    this.own(sessionId, { principal, epoch: 0, state: '' });
    return true;
  }

  /** The principal of a session this process owns ('' without auth); undefined for another session. */
  principalOf(sessionId: string): string | undefined {
    return this.owned.get(sessionId)?.principal;
  }

  /** The epoch at which this process owns a session; undefined when it does not. */
  epochOf(sessionId: string): number | undefined {
    return this.owned.get(sessionId)?.epoch;
  }

  async lookup(sessionId: string): Promise<SessionRecord | undefined> {
    const keys = [this.keys.session(sessionId), this.keys.events(sessionId)];
    const found = (await this.redis.call('EVAL', [LOOKUP, 2, ...keys, this.ttlMs])) as
      [string, string, string, string, string] | null;
    if (!found) return undefined;
    const [owner, state, principal, epoch, bus] = found;
    // The heartbeat is another key (another slot of a Redis Cluster): read apart.
    const url = owner === '' ? null : await this.redis.call('GET', [this.keys.process(owner)]);
    return {
      owner,
      ownerUrl: typeof url === 'string' && url !== '' ? url : undefined,
      state: parseState(state),
      principal,
      epoch: Number(epoch),
      bus,
    };
  }

  /**
   * Takes the session over from `expected` for a caller whose principal is `principal`: the new
   * epoch; `'taken'` when another process took it first; `'forbidden'` when it belongs to another
   * principal (then nothing changed in Redis).
   */
  async claim(
    sessionId: string,
    expected: string,
    principal: string,
    state: PersistedSession,
  ): Promise<number | 'taken' | 'forbidden'> {
    const key = this.keys.session(sessionId);
    const epoch = Number(await this.redis.call('EVAL', [CLAIM, 1, key, expected, this.processId, principal]));
    if (epoch === -2) return 'forbidden';
    if (epoch < 0) return 'taken';
    this.own(sessionId, { principal, epoch, state: JSON.stringify(state) });
    return epoch;
  }

  /** Writes the session's state into its record (the whole record again when Redis lost it). */
  async persist(sessionId: string, state: PersistedSession): Promise<void> {
    const text = JSON.stringify(state);
    const mine = this.owned.get(sessionId);
    if (!mine) return;
    mine.state = text;
    const written = await this.fenced(
      PERSIST,
      sessionId,
      mine.epoch,
      [this.keys.session(sessionId)],
      [text, this.ttlMs],
    );
    if (written === 0) await this.reviveOne(sessionId);
  }

  /**
   * Appends an event to the session's stream (`fields`: the entry's), fenced like every owner's
   * write when this process owns the session: its entry id, or undefined when another process took
   * the session over (nothing appended), as for a session this process gave up. A stream of no
   * session (a modern request's) is written as it is.
   */
  async append(sessionId: string, fields: readonly string[], maxLen: number): Promise<string | undefined> {
    const epoch = this.epochOf(sessionId);
    if (epoch === undefined && this.disowned.has(sessionId)) return undefined;
    const keys = [this.keys.session(sessionId), this.keys.events(sessionId)];
    const args = [APPEND, 2, ...keys, this.processId, epoch ?? -1, maxLen, this.ttlMs, ...fields];
    if (epoch === undefined) {
      const key = keys[1]!;
      const [id] = await Promise.all([
        this.redis.call('XADD', [key, 'MAXLEN', maxLen, '*', ...fields]),
        this.redis.call('PEXPIRE', [key, this.ttlMs]),
      ]);
      return String(id);
    }
    const id = await this.redis.call('EVAL', args);
    if (id === null || id === undefined) {
      this.lost(sessionId, epoch);
      return undefined;
    }
    return String(id);
  }

  /**
   * Checks in Redis that this process still owns the session (after a pause that may have let
   * another take it over): false, and the session is given up here, when another did.
   */
  async verify(sessionId: string): Promise<boolean> {
    const mine = this.owned.get(sessionId);
    if (!mine) return false;
    return (await this.fenced(VERIFY, sessionId, mine.epoch, [this.keys.session(sessionId)], [])) !== -1;
  }

  /** {@link SessionRegistry.verify} for each session: how many are still this process's own. */
  async verifyAll(sessionIds: Iterable<string>): Promise<number> {
    const kept = await Promise.all([...sessionIds].map((id) => this.verify(id)));
    return kept.filter(Boolean).length;
  }

  /**
   * Deletes the session and its events (it ended), unless another process owns it now. `abandoned`:
   * a session never initialized whose owner is gone, deleted while that owner still holds it.
   */
  async forget(sessionId: string, abandoned?: { readonly owner: string; readonly epoch: number }): Promise<void> {
    const mine = this.owned.get(sessionId);
    this.owned.delete(sessionId);
    const keys = [this.keys.session(sessionId), this.keys.events(sessionId)];
    const owner = abandoned?.owner ?? this.processId;
    const calls = [this.redis.call('EVAL', [FORGET, 2, ...keys, owner, abandoned?.epoch ?? mine?.epoch ?? 0])];
    if (this.maxPerPrincipal > 0 && mine?.principal)
      calls.push(this.redis.call('ZREM', [this.keys.principalSessions(mine.principal), sessionId]));
    await Promise.all(calls);
  }

  /** Deletes the events of a stream of no session (a modern request's); a session's stay with its record. */
  async forgetUnownedEvents(sessionId: string): Promise<void> {
    const keys = [this.keys.session(sessionId), this.keys.events(sessionId)];
    await this.redis.call('EVAL', [FORGET_UNOWNED_EVENTS, 2, ...keys]);
  }

  /**
   * Keeps the records of sessions alive (their owner serves them, maybe on a long stream); a record
   * that is gone (Redis restarted empty) is written again, one another process took is given up.
   * Forgets what it kept of sessions this process no longer serves.
   */
  async touch(sessionIds: Iterable<string>): Promise<void> {
    const live = new Set(sessionIds);
    for (const id of this.owned.keys()) if (!live.has(id)) this.owned.delete(id);
    const calls: Promise<unknown>[] = [];
    if (this.maxPerPrincipal > 0) calls.push(...this.keepQuotas(live));
    for (const id of live) {
      const mine = this.owned.get(id);
      if (!mine) continue;
      const keys = [this.keys.session(id), this.keys.events(id)];
      calls.push(
        this.fenced(TOUCH, id, mine.epoch, keys, [this.ttlMs]).then((kept) => {
          if (kept === 0) return this.reviveOne(id);
          return undefined;
        }),
      );
    }
    await Promise.all(calls);
  }

  /** The quota's sets count their sessions as long as those live. */
  private keepQuotas(live: ReadonlySet<string>): Promise<unknown>[] {
    const byPrincipal = new Map<string, string[]>();
    for (const id of live) {
      const principal = this.owned.get(id)?.principal ?? '';
      if (principal === '') continue;
      let ids = byPrincipal.get(principal);
      if (!ids) byPrincipal.set(principal, (ids = []));
      ids.push(id);
    }
    return [...byPrincipal].map(([principal, ids]) =>
      this.redis.call('EVAL', [KEEP_QUOTA, 1, this.keys.principalSessions(principal), this.ttlMs, ...ids]),
    );
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
      await this.redis.call('EVAL', [KEEP_QUOTA, 1, set, this.ttlMs, sessionId]);
    }
    return written;
  }

  /** Gives up the sessions this process serves: another process takes each over on its next request. */
  async release(sessionIds: Iterable<string>): Promise<void> {
    const ids = [...sessionIds];
    const epochs = ids.map((id) => this.owned.get(id)?.epoch ?? 0);
    for (const id of ids) this.disown(id);
    await Promise.all(
      ids.map((id, i) => this.redis.call('EVAL', [RELEASE, 1, this.keys.session(id), this.processId, epochs[i]!])),
    );
  }

  /** Says `processId` is alive at `url` for `ttlMs`. */
  async beat(processId: string, url: string, ttlMs: number): Promise<void> {
    await this.redis.call('SET', [this.keys.process(processId), url, 'PX', ttlMs]);
  }

  async leave(processId: string): Promise<void> {
    await this.redis.call('DEL', [this.keys.process(processId)]);
  }

  /** Runs an owner's fenced script: 1 written, 0 no record, -1 replaced (then the session is given up). */
  private async fenced(
    script: string,
    sessionId: string,
    epoch: number,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<number> {
    const outcome = Number(
      await this.redis.call('EVAL', [script, keys.length, ...keys, this.processId, epoch, ...args]),
    );
    if (outcome === -1) this.lost(sessionId, epoch);
    return outcome;
  }

  /** Another process owns the session now: this one forgets it and says so, once per epoch. */
  private lost(sessionId: string, epoch: number): void {
    if (this.owned.get(sessionId)?.epoch !== epoch) return;
    this.disown(sessionId);
    this.replaced.next(sessionId);
  }

  private own(sessionId: string, record: OwnedRecord): void {
    this.disowned.delete(sessionId);
    this.owned.set(sessionId, record);
  }

  private disown(sessionId: string): void {
    this.owned.delete(sessionId);
    this.disowned.add(sessionId);
    // Writes queued for a session given up come within moments: the oldest entries may go.
    if (this.disowned.size > DISOWNED_KEPT) this.disowned.delete(this.disowned.values().next().value as string);
  }
}

/** How many sessions given up a registry remembers, to refuse the writes still queued for them. */
const DISOWNED_KEPT = 4096;

function parseState(text: string): PersistedSession | undefined {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as PersistedSession;
  } catch {
    return undefined;
  }
}
