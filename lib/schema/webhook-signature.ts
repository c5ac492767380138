/**
 * The webhook signature scheme of events (design sketch: Webhook Security → Signature scheme, a
 * profile of Standard Webhooks): `webhook-signature` is `v1,<base64 HMAC-SHA256(secret, id + "." +
 * timestamp + "." + body)>`, several space-delimited during a secret rotation; the secret is
 * `whsec_` and the base64 of 24 to 64 bytes. One implementation signs and verifies.
 */
import { nodeCrypto } from '../base/node-builtins';

/** The headers of every webhook delivery (lower-case, as Node gives them to a receiver). */
export const WebhookHeader = {
  Id: 'webhook-id',
  Timestamp: 'webhook-timestamp',
  Signature: 'webhook-signature',
  SubscriptionId: 'x-mcp-subscription-id',
} as const;

/** The key bytes of a `whsec_` secret; undefined when it is not one (24 to 64 bytes of base64). */
export function webhookSecretKey(secret: string): Uint8Array | undefined {
  if (!secret.startsWith('whsec_')) return undefined;
  const encoded = secret.slice('whsec_'.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= 24 && key.length <= 64 ? key : undefined;
}

/** A fresh `whsec_` secret of 32 random bytes, for `events/subscribe`'s `delivery.secret`. */
export function generateWebhookSecret(): string {
  return `whsec_${nodeCrypto().randomBytes(32).toString('base64')}`;
}

/** One `v1,` signature of a delivery. */
function signature(key: Uint8Array, id: string, timestampS: number, body: string | Uint8Array): string {
  const hmac = nodeCrypto().createHmac('sha256', key);
  hmac.update(`${id}.${timestampS}.`, 'utf8');
  if (typeof body === 'string') hmac.update(body, 'utf8');
  else hmac.update(body);
  return `v1,${hmac.digest('base64')}`;
}

/**
 * The `webhook-signature` value of a delivery: one signature per secret, space-delimited (the
 * new secret first while an old one is still honoured). Throws `TypeError` for a malformed secret.
 */
export function signWebhook(secrets: readonly string[], id: string, timestampS: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = webhookSecretKey(secret);
      if (!key) throw new TypeError('a webhook secret is whsec_ and the base64 of 24 to 64 bytes');
      return signature(key, id, timestampS, body);
    })
    .join(' ');
}

/** What {@link verifyWebhookSignature} checks. */
export interface VerifyWebhookOptions {
  /** The secret, or every secret that may have signed (during a rotation, old and new). */
  readonly secret: string | readonly string[];
  /** The request's headers; names in any case. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The raw body exactly as received, never re-serialized JSON. */
  readonly body: string | Uint8Array;
  /** Refuse a timestamp further than this from now. Default 300 s (the sketch's five minutes). */
  readonly toleranceS?: number;
  /** Now, in ms since the epoch. Default `Date.now()`. */
  readonly nowMs?: number;
}

/** The outcome of {@link verifyWebhookSignature}. */
export type WebhookVerification =
  | { readonly valid: true; readonly id: string; readonly timestampS: number }
  | { readonly valid: false; readonly reason: 'missing_headers' | 'stale_timestamp' | 'bad_signature' };

function header(headers: VerifyWebhookOptions['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? (value as readonly string[])[0] : (value as string | undefined);
  }
  return undefined;
}

/**
 * Checks a webhook delivery on the receiving side: its headers are there, its timestamp is fresh
 * (which refuses a replay), and one of its `v1,` signatures matches one of the secrets, compared
 * in constant time. Never throws for a bad delivery: the answer says why.
 * @example
 * const check = verifyWebhookSignature({ secret, headers: req.headers, body: rawBody });
 * if (!check.valid) return res.writeHead(401).end();
 */
export function verifyWebhookSignature(options: VerifyWebhookOptions): WebhookVerification {
  const id = header(options.headers, WebhookHeader.Id);
  const timestamp = header(options.headers, WebhookHeader.Timestamp);
  const signatures = header(options.headers, WebhookHeader.Signature);
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return { valid: false, reason: 'missing_headers' };
  const timestampS = Number(timestamp);
  const nowS = Math.floor((options.nowMs ?? Date.now()) / 1000);
  if (Math.abs(nowS - timestampS) > (options.toleranceS ?? 300)) return { valid: false, reason: 'stale_timestamp' };
  const { body } = options;
  const given = signatures.split(' ').filter((entry) => entry.startsWith('v1,'));
  const { timingSafeEqual } = nodeCrypto();
  for (const secret of typeof options.secret === 'string' ? [options.secret] : options.secret) {
    const key = webhookSecretKey(secret);
    if (!key) continue;
    const expected = Buffer.from(signature(key, id, timestampS, body));
    for (const candidate of given) {
      const bytes = Buffer.from(candidate);
      if (bytes.length === expected.length && timingSafeEqual(bytes, expected)) return { valid: true, id, timestampS };
    }
  }
  return { valid: false, reason: 'bad_signature' };
}
