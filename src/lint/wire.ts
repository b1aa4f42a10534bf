// What a decoder's grammar lets through that is not the JSON the address parses (draft §5.2): raw
// control characters in strings, lone surrogate escapes, numbers past a double, repeated member
// names. The address refuses each with a bare 204, so a profile says which its decoder produces.

/** Why, for a string rule that takes any character but the quote, the backslash and line breaks. */
export const RAW_CONTROLS = 'its length-bounded string rule writes raw control characters (TAB, U+0001), which are not JSON: the parser refuses the body'
/** Why, for a string rule that takes every \u escape. */
export const LONE_SURROGATES = 'a string may be written with a lone surrogate escape ("\\ud800"), which the parser refuses'
/** Why, for a pattern matched against the JSON text of the string rather than the string. */
export const TEXT_MATCHED = 'the pattern is matched against the JSON text, not the string it encodes: where it admits a backslash, a quote or a control character, the actor writes escapes that decode to another string ("\\u0041") or a lone surrogate, or text that is not JSON (a raw TAB, a stray quote)'
/** Why, for names of members the form does not list. */
export const REPEATED_NAMES = 'a member name may repeat, and the parser refuses duplicate names'
/** Why, for a number rule without a bound on its exponent. */
export const NUMBER_OVERFLOW = 'its number rule takes any exponent: 1e400 overflows a double and 1e-400 becomes 0, and the parser refuses both'
/** Why, for a pattern with a `.` where the decoder's `.` is wider than JavaScript's. */
export const DOT = '"." admits U+2028 and U+2029 (and \\r), which JavaScript\'s "." excludes'

// Characters whose presence in the JSON text of a string changes what it encodes or breaks it.
const PROBES = ['\\', '"', '\t', '\u0001', '\n']

/** The atoms of a pattern that match one character: escapes, classes, `.` (a rough reading, enough to probe). */
function atoms (pattern: string): string[] {
  const out: string[] = []
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string
    if (c === '\\') {
      const next = pattern[i + 1] ?? ''
      const length = next === 'u' ? (pattern[i + 2] === '{' ? pattern.indexOf('}', i) - i + 1 : 6) : next === 'x' ? 4 : /[pP]/.test(next) ? pattern.indexOf('}', i) - i + 1 : 2
      out.push(pattern.slice(i, i + Math.max(length, 2)))
      i += Math.max(length, 2) - 1
    } else if (c === '[') {
      let end = i + 1
      if (pattern[end] === '^') end++
      if (pattern[end] === ']') end++
      while (end < pattern.length && pattern[end] !== ']') end += pattern[end] === '\\' ? 2 : 1
      out.push(pattern.slice(i, end + 1))
      i = end
    } else if (!'^$()|*+?{},0123456789'.includes(c) || c === '.') out.push(c === '.' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  }
  return out
}

const matches = (atom: string, c: string): boolean => {
  if (atom === '.') return true // the decoders' "." takes every character but line breaks, the backslash among them
  try {
    return new RegExp(`^(?:${atom})$`, 'u').test(c)
  } catch {
    return false
  }
}

/** Whether a pattern matched against JSON text admits a character that changes or breaks that text. */
export const textLeaks = (pattern: string): boolean => atoms(pattern).some((atom) => PROBES.some((c) => matches(atom, c)))

/** Whether a pattern holds a `.` outside a character class. */
export const hasDot = (pattern: string): boolean => atoms(pattern).includes('.')
