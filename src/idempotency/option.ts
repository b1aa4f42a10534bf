// The `idempotency` option (docs/idempotency.md), checked, defaulted and frozen at registration.
import { GPT_ERR_OPTION_INVALID } from '../errors.ts'
import { resolveMembers } from '../members.ts'
import type { IdempotencySettings } from './keys.ts'

export const DEFAULT_IDEMPOTENCY: IdempotencySettings = Object.freeze({
  keep: 86_400_000,
  maxKeys: 10_000,
  maxBytes: 134_217_728,
  lease: 10_000
})

/**
 * `true` or an object of known members, each a positive integer (`keep` and `lease` delays at most
 * what setTimeout keeps); anything else throws a named error. `undefined` or `false`: off.
 * `maxKeys` and `maxBytes` bound an address's keys wherever they live: in this process, or with
 * `share` in Redis across every instance (one client at most a quarter of each, either way).
 */
export function resolveIdempotency (value: unknown, path: string): IdempotencySettings | undefined {
  if (value === undefined || value === false) return undefined
  if (value === true) return DEFAULT_IDEMPOTENCY
  const invalid = (detail: string): Error => new GPT_ERR_OPTION_INVALID(path, detail)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('"idempotency" must be a boolean or an object of { keep, maxKeys, maxBytes, lease }')
  return resolveMembers('idempotency', value as Record<string, unknown>, DEFAULT_IDEMPOTENCY, ['maxKeys', 'maxBytes'], invalid)
}
