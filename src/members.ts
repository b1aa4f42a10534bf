// An option made of positive integers (`background`, `idempotency`): its members checked against
// their defaults, in one place. A leaf: the rooms that own such options call it.
import { MAX_DELAY } from './defaults.ts'

/**
 * `given`'s members over `defaults`, each a positive integer and, unless named in `counts`, a delay
 * at most what setTimeout keeps; `invalid` makes the named error for the first that is not, or for
 * a member `defaults` does not have.
 */
export function resolveMembers<T extends { readonly [K in keyof T]: number }> (
  option: string, given: Readonly<Record<string, unknown>>, defaults: T, counts: readonly string[], invalid: (detail: string) => Error
): T {
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(defaults, name)) throw invalid(`"${option}.${name}" is not an option of ${option}`)
  }
  const resolved: Record<string, number> = {}
  for (const name of Object.keys(defaults)) {
    const value = given[name] ?? defaults[name as keyof T]
    const delay = !counts.includes(name)
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0 || (delay && value > MAX_DELAY)) {
      throw invalid(`"${option}.${name}" must be a positive integer${delay ? ` of milliseconds, at most ${MAX_DELAY}` : ''}`)
    }
    resolved[name] = value
  }
  return Object.freeze(resolved) as unknown as T
}
