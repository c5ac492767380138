import { nodeCrypto } from '../base/node-builtins';
import { JsonRpcError } from '../jsonrpc/errors';
import { digestOf } from './digest';

/** Options of `RequestStateSealer`. */
export interface RequestStateOptions {
  /**
   * Keys that authenticate `requestState` (HMAC-SHA-256). The first signs; all verify, so a key
   * can be rotated by putting the new one first and keeping the old one until the states it
   * signed have expired. Processes that serve the same clients must share them. Default: one
   * random key made when the server is created (states then verify only in that process).
   */
  readonly keys?: readonly (string | Uint8Array)[];
  /** How long a state stays valid after it was issued. Default 10 minutes. */
  readonly ttlMs?: number;
  /** The largest state issued or accepted, in bytes of its encoded form. Default 64 KiB. */
  readonly maxBytes?: number;
}

export const DEFAULT_REQUEST_STATE_TTL_MS = 10 * 60_000;
export const DEFAULT_REQUEST_STATE_MAX_BYTES = 64 * 1024;

/** What a sealed state holds (spec 2026-07-28: MRTR → Server Requirements). */
export interface RequestStatePayload {
  /** The method and a digest of the request's salient params: a state is bound to its request. */
  readonly request: string;
  /** The principal the state was issued to, when the request was authenticated. */
  readonly principal?: string;
  /** Milliseconds since the epoch after which the state is refused. */
  readonly expiresAt: number;
  /** Answers gathered in earlier rounds, by input request key. */
  readonly answers: Readonly<Record<string, unknown>>;
  /** The input requests of the last round that are still unanswered: key → method. */
  readonly asked: Readonly<Record<string, string>>;
}

interface Key {
  readonly id: string;
  readonly secret: Buffer;
}

const VERSION = 'r1';

function keyOf(material: string | Uint8Array): Key {
  const secret = Buffer.from(material);
  if (secret.length < 16) throw new RangeError('a requestState key must be at least 16 bytes long');
  return { id: nodeCrypto().createHash('sha256').update(secret).digest('base64url').slice(0, 8), secret };
}

/**
 * What binds a state to its request: the method and a digest of its params other than `_meta`,
 * `inputResponses` and `requestState` (the name or URI and the arguments).
 */
export function requestBinding(method: string, params: Record<string, unknown>): string {
  const { _meta, inputResponses, requestState, ...salient } = params;
  void _meta;
  void inputResponses;
  void requestState;
  return `${method}#${digestOf(salient)}`;
}

const refused = (why: string) => JsonRpcError.invalidParams(`requestState ${why}`);

/**
 * Seals and opens the opaque `requestState` of multi round-trip requests: JSON, authenticated
 * with HMAC-SHA-256 under a key id, bounded in size and age. A client can read what it holds (its
 * own answers) but not change it: a state that fails verification, has expired, or belongs to
 * another request or principal is refused with -32602.
 */
export class RequestStateSealer {
  private given: readonly Key[] | undefined;
  private readonly ttlMs: number;
  private readonly maxBytes: number;

  constructor(options: RequestStateOptions = {}) {
    if (options.keys?.length === 0) throw new RangeError('requestState needs at least one key');
    this.given = options.keys?.map(keyOf);
    this.ttlMs = options.ttlMs ?? DEFAULT_REQUEST_STATE_TTL_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_REQUEST_STATE_MAX_BYTES;
  }

  /** The keys given, or one made at random at the first use: most servers never seal a state. */
  private get keys(): readonly Key[] {
    return (this.given ??= [keyOf(nodeCrypto().randomBytes(32))]);
  }

  /** The expiry of a state issued at `now`. */
  expiry(now: number): number {
    return now + this.ttlMs;
  }

  /** Seals a payload; throws a -32603 `JsonRpcError` when it would exceed `maxBytes`. */
  seal(payload: RequestStatePayload): string {
    const key = this.keys[0]!;
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    const signed = `${VERSION}.${key.id}.${body}`;
    const token = `${signed}.${this.mac(key, signed)}`;
    if (token.length > this.maxBytes) {
      throw new JsonRpcError(
        -32603,
        `Internal error: the request's state (${token.length} bytes) exceeds the ${this.maxBytes}-byte limit`,
      );
    }
    return token;
  }

  /**
   * Opens a state a client sent back for the request `binding` at time `now`; throws -32602 when
   * it is malformed, forged, expired, too large, or issued for another request or principal.
   */
  open(token: unknown, binding: string, now: number, principal?: string): RequestStatePayload {
    if (typeof token !== 'string') throw refused('must be a string');
    if (token.length > this.maxBytes) throw refused(`is larger than ${this.maxBytes} bytes`);
    const parts = token.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION) throw refused('is malformed');
    const [, keyId, body, mac] = parts as [string, string, string, string];
    const key = this.keys.find((candidate) => candidate.id === keyId);
    if (!key) throw refused('was signed with an unknown key');
    const expected = Buffer.from(this.mac(key, `${VERSION}.${keyId}.${body}`));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !nodeCrypto().timingSafeEqual(given, expected))
      throw refused('failed verification');
    let payload: RequestStatePayload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as RequestStatePayload;
    } catch {
      throw refused('is malformed');
    }
    if (typeof payload !== 'object' || payload === null) throw refused('is malformed');
    if (!(payload.expiresAt > now)) throw refused('has expired');
    if (payload.request !== binding) throw refused('belongs to another request');
    if (payload.principal !== principal) throw refused('belongs to another principal');
    return payload;
  }

  private mac(key: Key, signed: string): string {
    return nodeCrypto().createHmac('sha256', key.secret).update(signed).digest('base64url');
  }
}
