// Format checkers of our own, for formats that ajv-formats checks only approximately. A form's
// `format` is enforced exactly or refused (draft §5.2 (4)): docs/decisions.md.

/** `uuid`: RFC 9562's string form, bare (no `urn:uuid:` prefix, no braces). */
export const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** `regex`: an ECMA-262 pattern as the `pattern` keyword compiles it, with the `u` flag. */
export function regex (text: string): boolean {
  try {
    return RegExp(text, 'u') instanceof RegExp
  } catch {
    return false
  }
}

// RFC 3339 §5.6. Without the u flag \d is ASCII only; `$` is the end of the text, never a newline
// before it. "T" and "Z" may be lower case (§5.6, note).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/

/** `date-time`: RFC 3339 §5.6 `date-time`, with the limits of §5.7 (real dates, leap seconds). */
export function dateTime (text: string): boolean {
  const m = DATE_TIME.exec(text)
  if (m === null) return false
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  const sign = m[7] === '-' ? -1 : 1
  const offset = m[7] === undefined ? 0 : sign * (Number(m[8]) * 60 + Number(m[9]))
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false
  if (hour > 23 || minute > 59 || second > 60 || Number(m[8] ?? 0) > 23 || Number(m[9] ?? 0) > 59) return false
  // §5.7: a leap second is the 61st second of the last minute of a UTC day
  return second < 60 || (((hour * 60 + minute - offset) % 1440) + 1440) % 1440 === 23 * 60 + 59
}

/** Days in a month of the proleptic Gregorian calendar (RFC 3339 §5.7, Appendix C). */
function daysIn (year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

// RFC 3339 Appendix A, production by production; ABNF strings are case-insensitive (RFC 5234
// §2.3), so the designators may be lower case.
const SECOND = String.raw`\d+S`
const MINUTE = String.raw`\d+M(?:${SECOND})?`
const HOUR = String.raw`\d+H(?:${MINUTE})?`
const TIME = `T(?:${HOUR}|${MINUTE}|${SECOND})`
const DAY = String.raw`\d+D`
const MONTH = String.raw`\d+M(?:${DAY})?`
const YEAR = String.raw`\d+Y(?:${MONTH})?`
const DATE = `(?:${DAY}|${MONTH}|${YEAR})(?:${TIME})?`
const WEEK = String.raw`\d+W`

/** `duration`: RFC 3339 Appendix A `duration`. */
export const duration = new RegExp(`^P(?:${DATE}|${TIME}|${WEEK})$`, 'i')
