/**
 * The Lua scripts of the session registry. Each touches only the keys it is given, and a session's
 * keys share a hash tag, so that every script runs on one node of a Redis Cluster. The scripts an
 * owner runs to write are fenced: they write only while the record names the caller as owner with
 * the epoch it claimed, and answer -1 (nothing written) when another process took the session over.
 */

// Reads a session's record and refreshes its expiry (and its events').
export const LOOKUP = `
local h = redis.call('HMGET', KEYS[1], 'owner', 'state', 'principal', 'epoch', 'bus')
if not h[1] then return false end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return {h[1], h[2] or '', h[3] or '', h[4] or '0', h[5] or '0-0'}
`;

// Takes a session over from `expected` (its owner, gone) for the caller whose principal is ARGV[3]:
// the new epoch (one more than the last); -1 when another process took it first, -2 when the session
// belongs to another principal (nothing is changed then).
export const CLAIM = `
local h = redis.call('HMGET', KEYS[1], 'owner', 'principal')
if h[1] ~= ARGV[1] then return -1 end
if (h[2] or '') ~= ARGV[3] then return -2 end
redis.call('HSET', KEYS[1], 'owner', ARGV[2])
return redis.call('HINCRBY', KEYS[1], 'epoch', 1)
`;

// Writes again the record of a session this process serves, when Redis lost it (restarted empty):
// only when no record is there (another process may have taken it over since). 1 when written.
export const REVIVE = `
if redis.call('HEXISTS', KEYS[1], 'owner') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'epoch', ARGV[2], 'principal', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'state', ARGV[4]) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

// Records a new session (KEYS[1]) owned by ARGV[1] for the principal ARGV[2], at epoch 0, opened
// when the cluster's event log was at ARGV[4].
export const REGISTER = `
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'epoch', 0, 'principal', ARGV[2], 'bus', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

// The time on Redis's clock, in ms: every process measures the quota's expiries on the same clock.
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// Counts a principal's live sessions (KEYS[1], a sorted set scored by when each expires) and adds
// the session ARGV[3] unless it holds ARGV[1] already (then 0, nothing added).
export const TAKE_QUOTA = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

// Keeps the sessions ARGV[2..] of a principal (KEYS[1]) counted for ARGV[1] ms more.
export const KEEP_QUOTA = `${NOW}
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;

// The fence: the record (KEYS[1]) names ARGV[1] as owner at epoch ARGV[2]. 0: no record, -1: another owns it.
const FENCE = `local h = redis.call('HMGET', KEYS[1], 'owner', 'epoch')
local fenced = 1
if not h[1] then fenced = 0 elseif h[1] ~= ARGV[1] or h[2] ~= ARGV[2] then fenced = -1 end`;

// Writes a session's persisted state (ARGV[3]) into its record, for ARGV[4] ms more.
export const PERSIST = `${FENCE}
if fenced ~= 1 then return fenced end
redis.call('HSET', KEYS[1], 'state', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

// Keeps a session's record and events (KEYS[2]) for ARGV[3] ms more.
export const TOUCH = `${FENCE}
if fenced ~= 1 then return fenced end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
`;

// Deletes a session's record and events (it ended), unless another process owns it now.
export const FORGET = `${FENCE}
if fenced == -1 then return -1 end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
`;

// Gives a session up (owner ''), so that another process takes it over at once.
export const RELEASE = `${FENCE}
if fenced ~= 1 then return fenced end
redis.call('HSET', KEYS[1], 'owner', '')
return 1
`;

// Whether ARGV[1] still owns the session at epoch ARGV[2]: 1, 0 (no record) or -1 (replaced).
export const VERIFY = `${FENCE}
return fenced
`;

// Appends an event (fields ARGV[5..], names and values) to a session's stream (KEYS[2], trimmed to
// ARGV[3] entries, expiring after ARGV[4] ms): its entry id; false when another process owns the
// session. An event that carries a cluster-wide event's id (field `b`) moves the record's `bus` on
// to it: where the session's delivered events stop, which trimming the stream cannot lose.
export const APPEND = `${FENCE}
if fenced == -1 then return false end
local fields = {}
local bus = nil
for i = 5, #ARGV do fields[#fields + 1] = ARGV[i] end
for i = 5, #ARGV - 1, 2 do if ARGV[i] == 'b' then bus = ARGV[i + 1] end end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[3], '*', unpack(fields))
redis.call('PEXPIRE', KEYS[2], ARGV[4])
if bus and fenced == 1 then
  local at = redis.call('HGET', KEYS[1], 'bus')
  local function parts(v) local ms, seq = string.match(v or '0-0', '^(%d+)-(%d+)$') return tonumber(ms or 0), tonumber(seq or 0) end
  local bm, bs = parts(bus)
  local am, as = parts(at)
  if bm > am or (bm == am and bs > as) then redis.call('HSET', KEYS[1], 'bus', bus) end
end
return id
`;

// Deletes the events of a stream that has no session record (a modern request's); a session's
// events go with its record (FORGET), whoever owns it.
export const FORGET_UNOWNED_EVENTS = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
return redis.call('DEL', KEYS[2])
`;
