import { GPT_ERR_OPTION_INVALID } from '../errors.ts'
import type { BackgroundSettings, Settings } from '../address/options.ts'
import { resolveMembers } from '../members.ts'

export type { BackgroundSettings }

export const DEFAULT_BACKGROUND: BackgroundSettings = Object.freeze({
  after: 5000,
  keep: 900_000,
  maxJobs: 100,
  poll: 2000,
  heartbeat: 15_000,
  rateMax: 600,
  lease: 10_000
})

/**
 * Throws a named error for anything but an object of known members, each a positive integer
 * (a delay at most what setTimeout keeps). `undefined`: no background.
 */
export function resolveBackground (value: unknown, settings: Pick<Settings, 'path' | 'actTimeout'>): BackgroundSettings | undefined {
  if (value === undefined) return undefined
  const invalid = (detail: string): Error => new GPT_ERR_OPTION_INVALID(settings.path, detail)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('"background" must be an object of { after, keep, maxJobs, poll, heartbeat, rateMax, lease }')
  const resolved = resolveMembers('background', value as Record<string, unknown>, DEFAULT_BACKGROUND, ['maxJobs', 'rateMax'], invalid)
  // The hand-off answers the request: a timeout before it would answer 503 for an act that was
  // about to become a job, and one at the same time would race it.
  if (settings.actTimeout !== undefined && resolved.after >= settings.actTimeout) {
    throw invalid(`"background.after" (${resolved.after} ms) must be shorter than "actTimeout" (${settings.actTimeout} ms)`)
  }
  return resolved
}
