/**
 * The Lua scripts of shared webhook subscriptions and what their replies mean. Every key shares the
 * hash tag `{webhooks}` (one slot of a Redis Cluster), so that one script may read the index and
 * the records it names: the index (a set of record digests), one hash per subscription (its
 * record), and one delivery lease per subscription (the process that delivers it). The scripts that
 * write what a deliverer learned are fenced on the lease: a process that lost it writes nothing.
 */
import { isRecord } from '../base/objects';
import type { WebhookDeliveryStatus, WebhookErrorCategory } from '../schema/events';
import type { AuthInfo } from '../transport/transport';
import type { StoredWebhook, StoredWebhookSecret } from '../server/events/webhook-store';

/** The fields of a record, in the order the scripts answer them. */
const FIELDS = `'rec', 'sec', 'ttl', 'exp', 'w', 'st', 'g'`;

// Refreshes the record KEYS[2] (a new secret ARGV[4] demotes the others to ARGV[5] + ARGV[6] at
// most, dropping those past ARGV[5]; TTL ARGV[7]) and answers {1, its fields}; or, when there is
// none, creates it (static part ARGV[9], status ARGV[10], watermark ARGV[12]), indexes ARGV[1] in
// KEYS[1] and gives its lease KEYS[3] to ARGV[2] for ARGV[3] ms, answering {0}; or answers {2}
// when ARGV[8] records are indexed (after dropping the digests of records that expired).
export const SUBSCRIBE = `
local now = tonumber(ARGV[5])
local ttl = tonumber(ARGV[7])
if redis.call('EXISTS', KEYS[2]) == 1 then
  local secrets = cjson.decode(redis.call('HGET', KEYS[2], 'sec'))
  if secrets[1].secret ~= ARGV[4] then
    local grace = now + tonumber(ARGV[6])
    local kept = {{secret = ARGV[4], ['until'] = -1}}
    for _, old in ipairs(secrets) do
      local untilMs = old['until']
      if untilMs < 0 or untilMs > grace then untilMs = grace end
      if untilMs > now then table.insert(kept, {secret = old.secret, ['until'] = untilMs}) end
    end
    redis.call('HSET', KEYS[2], 'sec', cjson.encode(kept))
  end
  redis.call('HINCRBY', KEYS[2], 'g', 1)
  redis.call('HSET', KEYS[2], 'ttl', ttl, 'exp', now + ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
  local fields = redis.call('HMGET', KEYS[2], ${FIELDS})
  return {1, fields}
end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[8]) then
  for _, digest in ipairs(redis.call('SMEMBERS', KEYS[1])) do
    if redis.call('EXISTS', ARGV[11] .. digest) == 0 then redis.call('SREM', KEYS[1], digest) end
  end
  if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[8]) then return {2} end
end
local first = cjson.encode({{secret = ARGV[4], ['until'] = -1}})
redis.call('HSET', KEYS[2], 'rec', ARGV[9], 'sec', first, 'ttl', ttl, 'exp', now + ttl, 'w', ARGV[12], 'st', ARGV[10], 'g', 0)
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
return {0}
`;

// Removes the record KEYS[2], its digest ARGV[1] from the index KEYS[1] and its lease KEYS[3];
// answers 1 when there was a record.
export const UNSUBSCRIBE = `
local removed = redis.call('DEL', KEYS[2])
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[3])
return removed
`;

// Drops from the index KEYS[1] the digests whose record (ARGV[1] .. digest) expired, takes for
// ARGV[3] (for ARGV[4] ms) the free leases (ARGV[2] .. digest) of the others, and answers
// {digest, fields} for each lease taken.
export const CLAIM = `
local taken = {}
for _, digest in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local record = ARGV[1] .. digest
  if redis.call('EXISTS', record) == 0 then
    redis.call('SREM', KEYS[1], digest)
  elseif redis.call('SET', ARGV[2] .. digest, ARGV[3], 'NX', 'PX', ARGV[4]) then
    table.insert(taken, {digest, redis.call('HMGET', record, ${FIELDS})})
  end
end
return taken
`;

// Renews the lease KEYS[2] of ARGV[1] for ARGV[2] ms and answers {1, the record's fields}; {0}
// when another process holds it (or nobody); {-1} when the record is gone (the lease goes too).
export const RENEW = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return {0} end
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[2])
  return {-1}
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return {1, redis.call('HMGET', KEYS[1], ${FIELDS})}
`;

// Stores watermark ARGV[2] and status ARGV[3] in the record KEYS[1] while ARGV[1] holds its lease
// KEYS[2]: answers 1; 0 when the lease is another's; -1 when the record is gone.
export const SAVE = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('HSET', KEYS[1], 'w', ARGV[2], 'st', ARGV[3])
return 1
`;

// Gives the lease KEYS[1] up when ARGV[1] holds it.
export const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

/** The part of a record that never changes, as it is stored (field `rec`). */
export const staticPartOf = (record: StoredWebhook): string =>
  JSON.stringify({
    id: record.id,
    key: record.key,
    principal: record.principal,
    url: record.url,
    name: record.name,
    args: record.args,
    // The verified identity only, whatever else the object holds.
    ...(record.auth && {
      auth: {
        subject: record.auth.subject,
        clientId: record.auth.clientId,
        scopes: record.auth.scopes,
        expiresAt: record.auth.expiresAt,
        claims: record.auth.claims,
      },
    }),
  });

const ERRORS: ReadonlySet<string> = new Set<WebhookErrorCategory>([
  'timeout',
  'connection_refused',
  'tls_error',
  'http_4xx',
  'http_5xx',
  'challenge_failed',
]);
const isErrorCategory = (value: unknown): value is WebhookErrorCategory =>
  typeof value === 'string' && ERRORS.has(value);

function statusOf(raw: unknown): WebhookDeliveryStatus {
  const status = isRecord(raw) ? raw : {};
  return {
    active: status.active !== false,
    lastDeliveryAt: typeof status.lastDeliveryAt === 'string' ? status.lastDeliveryAt : null,
    lastError: isErrorCategory(status.lastError) ? status.lastError : null,
    ...(typeof status.failedSince === 'string' ? { failedSince: status.failedSince } : {}),
  };
}

function secretsOf(raw: unknown): StoredWebhookSecret[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((held: unknown) =>
    isRecord(held) && typeof held.secret === 'string' && typeof held.until === 'number'
      ? [{ secret: held.secret, until: held.until < 0 ? null : held.until }]
      : [],
  );
}

function authOf(raw: unknown): AuthInfo | undefined {
  if (!isRecord(raw) || !isRecord(raw.claims) || !Array.isArray(raw.scopes)) return undefined;
  return {
    ...(typeof raw.subject === 'string' ? { subject: raw.subject } : {}),
    ...(typeof raw.clientId === 'string' ? { clientId: raw.clientId } : {}),
    ...(typeof raw.expiresAt === 'number' ? { expiresAt: raw.expiresAt } : {}),
    scopes: raw.scopes.filter((scope: unknown): scope is string => typeof scope === 'string'),
    claims: raw.claims,
  };
}

const parse = (text: unknown): unknown => {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The record in a script's reply of its fields; undefined when they are not a record's (it expired, or is malformed). */
export function recordOf(fields: unknown): StoredWebhook | undefined {
  if (!Array.isArray(fields) || fields.length !== 7) return undefined;
  const values: unknown[] = fields;
  const [rec, sec, ttl, exp, w, st, g] = values;
  const fixed = parse(rec);
  const secrets = secretsOf(parse(sec));
  if (!isRecord(fixed) || secrets.length === 0 || !isRecord(fixed.args)) return undefined;
  const { id, key, principal, url, name } = fixed;
  if (typeof id !== 'string' || typeof key !== 'string' || typeof principal !== 'string') return undefined;
  if (typeof url !== 'string' || typeof name !== 'string') return undefined;
  const watermark = w === '' || w === null || w === undefined ? null : Number(w);
  return {
    id,
    key,
    principal,
    url,
    name,
    args: fixed.args,
    auth: authOf(fixed.auth),
    secrets,
    ttlMs: Number(ttl),
    expiresAt: Number(exp),
    watermark: watermark !== null && Number.isSafeInteger(watermark) ? watermark : null,
    status: statusOf(parse(st)),
    refreshes: Number(g),
  };
}
