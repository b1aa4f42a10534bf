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
// (its bytes off the address's and its client's counts), hold(client, bytes, at) puts the script's
// key in, as its client's, kept until `at`, and trim(set, now) forgets at most TRIM keys of `set`
// gone before `now`, the oldest first. After either, an empty ledger holds no bytes, whatever the
// counts drifted to (a key evicted under another memory policy). `0 - bytes`, since Lua's -"0" is
// -0, which Redis refuses as an integer.
export const LEDGER = `local hash, ledger, entries, total, held, mine, prefix = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], ARGV[1]
local member = string.sub(hash, #prefix + 1)
local function holder (client) return prefix .. 'ledger:client:' .. client end
local function holderOf (name)
  local entry = redis.call('HGET', entries, name)
  return entry and string.match(entry, '^%d+ (.*)$')
end
local function empty ()
  if redis.call('EXISTS', ledger) == 0 then redis.call('DEL', total, held) end
end
local function forget (name)
  redis.call('ZREM', ledger, name)
  local entry = redis.call('HGET', entries, name)
  if entry then
    local bytes, client = string.match(entry, '^(%d+) (.*)$')
    local own = holder(client)
    redis.call('HDEL', entries, name)
    redis.call('ZREM', own, name)
    redis.call('DECRBY', total, bytes)
    if redis.call('EXISTS', own) == 1 then redis.call('HINCRBY', held, client, 0 - bytes) else redis.call('HDEL', held, client) end
  end
  empty()
end
local function hold (client, bytes, at)
  forget(member)
  redis.call('ZADD', ledger, at, member)
  redis.call('HSET', entries, member, bytes .. ' ' .. client)
  redis.call('ZADD', holder(client), at, member)
  redis.call('INCRBY', total, bytes)
  redis.call('HINCRBY', held, client, bytes)
end
local function trim (set, now)
  local gone = redis.call('ZRANGEBYSCORE', set, '-inf', '(' .. now, 'LIMIT', 0, ${TRIM})
  for i = 1, #gone do forget(gone[i]) end
  empty()
end
`
