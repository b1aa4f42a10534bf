/** What the client asked of the hand-off in its Prefer header fields (RFC 7240). */
export interface Preferences {
  /** `respond-async`: hand off at once. */
  readonly async: boolean
  /** `wait=N`, in milliseconds: hand off after at most this long. */
  readonly wait: number | undefined
}

const NONE: Preferences = Object.freeze({ async: false, wait: undefined })
const WAIT = /^\d{1,9}$/

/**
 * Reads RFC 7240 preferences: comma-separated `token[=value]`, each perhaps with `;` parameters,
 * names case-insensitive. What is not understood is ignored (RFC 7240 §2: a preference is a hint).
 */
export function preferences (field: string | string[] | undefined): Preferences {
  if (field === undefined) return NONE
  let async = false
  let wait: number | undefined
  for (const item of (Array.isArray(field) ? field.join(',') : field).split(',')) {
    const [pair = ''] = item.split(';')
    const equals = pair.indexOf('=')
    const name = (equals === -1 ? pair : pair.slice(0, equals)).trim().toLowerCase()
    const value = equals === -1 ? '' : pair.slice(equals + 1).trim().replace(/^"(.*)"$/, '$1')
    if (name === 'respond-async') async = true
    else if (name === 'wait' && WAIT.test(value)) wait = Math.min(wait ?? Infinity, Number(value) * 1000)
  }
  return async || wait !== undefined ? { async, wait } : NONE
}
