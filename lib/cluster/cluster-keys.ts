import { createHash } from 'node:crypto';

/**
 * Where the cluster keeps what in Redis; every key starts with the cluster's `prefix`. A session's
 * keys carry its id as a hash tag (`{<session>}`), so that they share one slot of a Redis Cluster
 * and one script may write them together; a principal's and a task's keys carry their own tags.
 */
export class ClusterKeys {
  constructor(readonly prefix: string) {}

  /** A session's record (a hash: owner, epoch, principal, persisted state). */
  session(sessionId: string): string {
    return `${this.prefix}s:{${sessionId}}`;
  }

  /** The ids of a principal's sessions, for its quota (the principal hashed: it may be long). */
  principalSessions(principal: string): string {
    return `${this.prefix}ps:{${createHash('sha256').update(principal).digest('base64url')}}`;
  }

  /** A session's events: one Redis Stream for all its SSE streams. */
  events(sessionId: string): string {
    return `${this.prefix}ev:{${sessionId}}`;
  }

  /** A process's heartbeat: its endpoint URL, expiring when it stops beating. */
  process(processId: string): string {
    return `${this.prefix}p:${processId}`;
  }

  /** A task's record (a hash: the record's JSON, the process that runs it). */
  task(taskId: string): string {
    return `${this.prefix}t:{${taskId}}`;
  }

  /** The tasks of one owner (or, without one, of one session), oldest first: a sorted set by creation. */
  taskIndex(filter: { readonly owner?: string; readonly session?: string }): string {
    const name = filter.owner !== undefined ? `o:${filter.owner}` : `s:${filter.session ?? ''}`;
    return `${this.prefix}ti:{${createHash('sha256').update(name).digest('base64url')}}`;
  }

  /** The cluster-wide events kept for sessions whose owner is gone: a Redis Stream. */
  get busLog(): string {
    return `${this.prefix}bus-log`;
  }

  /** The key that signs `requestState` in every process. */
  get requestStateKey(): string {
    return `${this.prefix}request-state-key`;
  }

  /** The secret that signs the requests processes forward to each other (unless the options give one). */
  get forwardingSecretKey(): string {
    return `${this.prefix}forwarding-secret`;
  }

  /** The pub/sub channel of cluster-wide events. */
  get bus(): string {
    return `${this.prefix}bus`;
  }
}

/** The session a stream belongs to: its id up to the last `~` (`<session>~<n>`), or the stream itself. */
export function sessionOfStream(streamId: string): string {
  const cut = streamId.lastIndexOf('~');
  return cut < 0 ? streamId : streamId.slice(0, cut);
}
