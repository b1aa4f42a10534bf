// What an address's keys hold in Redis, across its instances, so that a new key is refused past
// `maxKeys` or `maxBytes`, or past a client's quarter of either, as in one process (keys.ts). Redis
// runs no script when a key expires, so a count kept beside the keys would only grow: the ledger
// is a sorted set of the keys by the time each goes (its hash's PEXPIREAT), which a claim trims of
// the ones gone, a few a call, and counts from the present on. Lua, prepended to the scripts of
// shared.ts: each keeps the ledger in the same atomic step as the key's hash.

/** Most entries of gone keys one script takes out of the address's ledger, and as many out of its client's. */
export const TRIM = 10

/**
 * The Redis keys of an address's ledger under `prefix`, and of `client`'s: the KEYS a script takes
 * after the key's hash. A client's own set is named by the scripts too, from the prefix (ARGV[1]):
 * a hash tag in `share.key` keeps every key of an address on one Redis Cluster slot.
 */
export function ledgerKeys (prefix: string, client: string): [string, string, string, string, string] {
  return [`${prefix}ledger`, `${prefix}ledger:entries`, `${prefix}ledger:bytes`, `${prefix}ledger:held`, `${prefix}ledger:client:${client}`]
}

// KEYS: the key's hash, then ledgerKeys: its keys by the time each goes; each key's "bytes client";
// the bytes of kept answers in all; each client's bytes; the client's keys by the time each goes.
// ARGV[1]: the prefix, so that the key is its hash's name without it. forget(name) takes a key out
// (its bytes off the address's and its client's counts); hold(client, bytes, at) puts the script's
// key in, as its client's, kept until `at` (in place where its client holds it already: a claim
// answered); trim(set, now) forgets at most TRIM keys of `set` gone before `now`, the oldest
// first; and empty() lets an empty ledger hold no bytes, whatever the counts drifted to (a key
// evicted under another memory policy).
export const LEDGER = `local hash, ledger, entries, total, held, mine, prefix = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], ARGV[1]
local member = string.sub(hash, #prefix + 1)
local function holder (client) return prefix .. 'ledger:client:' .. client end
local function entry (name)
  local text = redis.call('HGET', entries, name)
  if text then
    local bytes, client = string.match(text, '^(%d+) (.*)$')
    return tonumber(bytes), client
  end
end
local function count (client, change)
  if change ~= 0 then
    redis.call('INCRBY', total, change)
    redis.call('HINCRBY', held, client, change)
  end
end
local function forget (name)
  redis.call('ZREM', ledger, name)
  local bytes, client = entry(name)
  if client then
    local own = holder(client)
    redis.call('HDEL', entries, name)
    redis.call('ZREM', own, name)
    if redis.call('EXISTS', own) == 1 then
      count(client, 0 - bytes)
    else
      redis.call('DECRBY', total, bytes)
      redis.call('HDEL', held, client)
    end
  end
end
local function hold (client, bytes, at)
  local was, holding = entry(member)
  if holding ~= client then
    if holding then forget(member) end
    was = 0
  end
  redis.call('ZADD', ledger, at, member)
  redis.call('ZADD', holder(client), at, member)
  redis.call('HSET', entries, member, bytes .. ' ' .. client)
  count(client, bytes - was)
end
local function trim (set, now)
  local gone = redis.call('ZRANGEBYSCORE', set, '-inf', '(' .. now, 'LIMIT', 0, ${TRIM})
  for i = 1, #gone do forget(gone[i]) end
end
local function empty ()
  if redis.call('EXISTS', ledger) == 0 then redis.call('DEL', total, held) end
end
`
