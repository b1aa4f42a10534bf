// Format checkers of our own, for formats that ajv-formats checks only approximately or not at
// all. A form's `format` is enforced exactly or refused (draft §5.2 (4)): docs/decisions.md.

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
// before it. "T" and "Z" may be lower case (§5.6, note). `full-time` wants the seconds and the
// offset, and an offset is "Z" or ±hh:mm: ajv-formats' `time` also takes +01 and +0100.
const FULL_TIME = String.raw`(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))`
const TIME_ONLY = new RegExp(`^${FULL_TIME}$`)
const DATE_TIME = new RegExp(String.raw`^(\d{4})-(\d{2})-(\d{2})[Tt]${FULL_TIME}$`)

/** `time`: RFC 3339 §5.6 `full-time`, with the limits of §5.7 (leap seconds). */
export function time (text: string): boolean {
  const m = TIME_ONLY.exec(text)
  return m !== null && clock(m.slice(1))
}

/** `date-time`: RFC 3339 §5.6 `date-time`, with the limits of §5.7 (real dates, leap seconds). */
export function dateTime (text: string): boolean {
  const m = DATE_TIME.exec(text)
  if (m === null) return false
  const [year, month, day] = m.slice(1, 4).map(Number) as [number, number, number]
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && clock(m.slice(4))
}

/** A `full-time`'s numbers in range; §5.7: a leap second is the 61st second of the last minute of a UTC day. */
function clock ([h, min, s, sign, offsetHours, offsetMinutes]: (string | undefined)[]): boolean {
  const [hour, minute, second] = [h, min, s].map(Number) as [number, number, number]
  const offset = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes))
  if (hour > 23 || minute > 59 || second > 60 || Number(offsetHours ?? 0) > 23 || Number(offsetMinutes ?? 0) > 59) return false
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

// RFC 3986 Appendix A, production by production; with `ucschar` and `iprivate` added where
// RFC 3987 §2.2 adds them, the same productions make IRIs. Every alternative below starts or ends
// on a character the others cannot take, so no pattern backtracks more than linearly.
const PCT = '%[0-9A-Fa-f]{2}'
const SUB_DELIMS = "!$&'()*+,;="
const UCSCHAR = String.raw`\u{A0}-\u{D7FF}\u{F900}-\u{FDCF}\u{FDF0}-\u{FFEF}\u{10000}-\u{1FFFD}\u{20000}-\u{2FFFD}\u{30000}-\u{3FFFD}\u{40000}-\u{4FFFD}\u{50000}-\u{5FFFD}\u{60000}-\u{6FFFD}\u{70000}-\u{7FFFD}\u{80000}-\u{8FFFD}\u{90000}-\u{9FFFD}\u{A0000}-\u{AFFFD}\u{B0000}-\u{BFFFD}\u{C0000}-\u{CFFFD}\u{D0000}-\u{DFFFD}\u{E1000}-\u{EFFFD}`
const IPRIVATE = String.raw`\u{E000}-\u{F8FF}\u{F0000}-\u{FFFFD}\u{100000}-\u{10FFFD}`
const SCHEME = String.raw`[A-Za-z][A-Za-z0-9+\-.]*`
const DEC_OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`
const IPV4 = String.raw`${DEC_OCTET}(?:\.${DEC_OCTET}){3}`
const H16 = '[0-9A-Fa-f]{1,4}'
const LS32 = `(?:${H16}:${H16}|${IPV4})`
const IPV6 = '(?:' + [
  `(?:${H16}:){6}${LS32}`,
  `::(?:${H16}:){5}${LS32}`,
  `(?:${H16})?::(?:${H16}:){4}${LS32}`,
  `(?:(?:${H16}:){0,1}${H16})?::(?:${H16}:){3}${LS32}`,
  `(?:(?:${H16}:){0,2}${H16})?::(?:${H16}:){2}${LS32}`,
  `(?:(?:${H16}:){0,3}${H16})?::${H16}:${LS32}`,
  `(?:(?:${H16}:){0,4}${H16})?::${LS32}`,
  `(?:(?:${H16}:){0,5}${H16})?::${H16}`,
  `(?:(?:${H16}:){0,6}${H16})?::`
].join('|') + ')'

/** RFC 3986 `URI` and `URI-reference`, or with `ucschar` RFC 3987 `IRI` and `IRI-reference`. */
function references (ucschar: string, iprivate: string): { absolute: RegExp, reference: RegExp } {
  const unreserved = String.raw`A-Za-z0-9\-._~${ucschar}`
  const pchar = `(?:[${unreserved}${SUB_DELIMS}:@]|${PCT})`
  // "v" is an ABNF string, so case-insensitive
  const ipLiteral = String.raw`\[(?:${IPV6}|[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~${SUB_DELIMS}:]+)\]`
  const userinfo = `(?:[${unreserved}${SUB_DELIMS}:]|${PCT})*`
  const regName = `(?:[${unreserved}${SUB_DELIMS}]|${PCT})*` // takes every IPv4address too
  const authority = String.raw`(?:${userinfo}@)?(?:${ipLiteral}|${regName})(?::\d*)?`
  const pathAbempty = `(?:/${pchar}*)*`
  const pathAbsolute = `/(?:${pchar}+${pathAbempty})?`
  const segmentNzNc = `(?:[${unreserved}${SUB_DELIMS}@]|${PCT})+`
  const query = String.raw`(?:\?(?:${pchar}|[/?${iprivate}])*)?`
  const fragment = `(?:#(?:${pchar}|[/?])*)?`
  const hierPart = `(?://${authority}${pathAbempty}|${pathAbsolute}|${pchar}+${pathAbempty}|)`
  const relativePart = `(?://${authority}${pathAbempty}|${pathAbsolute}|${segmentNzNc}${pathAbempty}|)`
  return {
    absolute: new RegExp(`^${SCHEME}:${hierPart}${query}${fragment}$`, 'u'),
    reference: new RegExp(`^(?:${SCHEME}:${hierPart}|${relativePart})${query}${fragment}$`, 'u')
  }
}

const URI = references('', '')
const IRI = references(UCSCHAR, IPRIVATE)

/** `uri`: RFC 3986 `URI`, an absolute reference with a scheme. */
export const uri = URI.absolute
/** `uri-reference`: RFC 3986 `URI-reference`, a URI or a relative reference. */
export const uriReference = URI.reference
/** `iri`: RFC 3987 `IRI`. */
export const iri = IRI.absolute
/** `iri-reference`: RFC 3987 `IRI-reference`. */
export const iriReference = IRI.reference

// RFC 6570 §2. `literals` takes %x26-3B, so the apostrophe too, although the comment beside the
// production says otherwise: the grammar decides.
const LITERAL = String.raw`(?:[\x21\x23\x24\x26-\x3b\x3d\x3f-\x5b\x5d\x5f\x61-\x7a\x7e${UCSCHAR}${IPRIVATE}]|${PCT})`
const VARCHAR = `(?:[A-Za-z0-9_]|${PCT})`
const VARSPEC = String.raw`${VARCHAR}(?:\.?${VARCHAR})*(?::[1-9]\d{0,3}|\*)?`
const EXPRESSION = String.raw`\{[+#./;?&=,!@|]?${VARSPEC}(?:,${VARSPEC})*\}`

/** `uri-template`: RFC 6570 `URI-Template`. */
export const uriTemplate = new RegExp(`^(?:${LITERAL}|${EXPRESSION})*$`, 'u')

// RFC 5321 §4.1.2 and §4.1.3. `IPv6:` is an ABNF string, so case-insensitive; it is the only
// registered tag of a General-address-literal, whose content is then an IPv6 address.
const ATEXT = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~]"
const DOT_STRING = String.raw`${ATEXT}+(?:\.${ATEXT}+)*`
const QUOTED_STRING = String.raw`"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"`
const SUB_DOMAIN = '[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?'
const DOMAIN = String.raw`${SUB_DOMAIN}(?:\.${SUB_DOMAIN})*`
const SNUM = String.raw`\d{1,3}`
const MAILBOX = new RegExp(String.raw`^(?:${DOT_STRING}|${QUOTED_STRING})@(?:${DOMAIN}|\[(${SNUM}(?:\.${SNUM}){3})\]|\[[Ii][Pp][Vv]6:${IPV6}\])$`)

/** `email`: RFC 5321 §4.1.2 `Mailbox` (its syntax; not §4.5.3's limits on length). */
export function email (text: string): boolean {
  const m = MAILBOX.exec(text)
  // a Snum is "a decimal integer value in the range 0 through 255"
  return m !== null && (m[1] === undefined || m[1].split('.').every((n) => Number(n) <= 255))
}

/** Every format of this file, by the name a form gives it. */
export const checks: Record<string, RegExp | ((text: string) => boolean)> = {
  uuid,
  regex,
  time,
  'date-time': dateTime,
  duration,
  email,
  uri,
  'uri-reference': uriReference,
  iri,
  'iri-reference': iriReference,
  'uri-template': uriTemplate
}
