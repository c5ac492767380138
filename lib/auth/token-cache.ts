/**
 * What a resource server remembers of the tokens it verified by asking the authorization server, so
 * that a client's every request does not cost a round trip: keyed by a digest of the token (the
 * token itself is never kept), each entry until the earlier of the token's expiry and a maximum age,
 * the least recently used dropped first past a number of entries.
 */
import { createHash } from 'node:crypto';
import type { AuthInfo } from '../transport/http/request-auth';

/** Limits of a {@link TokenCache}. */
export interface TokenCacheOptions {
  /** How long an entry is kept at most, in milliseconds; 0 keeps nothing. */
  readonly maxAgeMs: number;
  /** How many entries are kept at most. */
  readonly maxEntries: number;
}

interface Entry {
  readonly info: AuthInfo;
  /** Milliseconds since the epoch past which the entry is no longer used. */
  readonly until: number;
}

/** Verified tokens by digest, bounded in age and in number. */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<AuthInfo>>();

  constructor(private readonly options: TokenCacheOptions) {
    if (!(options.maxAgeMs >= 0) || !Number.isInteger(options.maxEntries) || options.maxEntries < 0)
      throw new RangeError('the token cache needs a maxAgeMs of 0 or more and a whole maxEntries of 0 or more');
  }

  /**
   * The identity of `token`: remembered while its entry lasts, else from `verify`, whose answer is
   * kept when the token has not expired. Calls for one token while `verify` runs share its answer;
   * a failure is never kept.
   */
  verify(token: string, verify: (token: string) => Promise<AuthInfo>): Promise<AuthInfo> {
    if (this.options.maxAgeMs === 0 || this.options.maxEntries === 0) return verify(token);
    const key = createHash('sha256').update(token).digest('base64url');
    const now = Date.now();
    const known = this.entries.get(key);
    if (known !== undefined) {
      this.entries.delete(key);
      if (known.until > now) {
        this.entries.set(key, known);
        return Promise.resolve(known.info);
      }
    }
    const running = this.pending.get(key);
    if (running !== undefined) return running;
    const verified = verify(token).then(
      (info) => {
        this.pending.delete(key);
        this.keep(key, info);
        return info;
      },
      (error: unknown) => {
        this.pending.delete(key);
        throw error;
      },
    );
    this.pending.set(key, verified);
    return verified;
  }

  private keep(key: string, info: AuthInfo): void {
    const now = Date.now();
    const until = Math.min(
      now + this.options.maxAgeMs,
      info.expiresAt !== undefined ? info.expiresAt * 1000 : Infinity,
    );
    if (!(until > now)) return;
    this.entries.set(key, { info, until });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.options.maxEntries) break;
      this.entries.delete(oldest);
    }
  }
}
