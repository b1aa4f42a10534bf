// How much there is to reason about, measured without recursion (the address decides how deep its
// arrival nests): the checker's bounds on what it parses, judges and generates from.

/**
 * Most JSON values an arrival may hold for the checker to parse it: each becomes an object in
 * memory (2.8 million `{}` fill 128 MB). A fastify-gpt arrival with 30,000 messages holds about
 * 120,000.
 */
export const MAX_ARRIVAL_VALUES = 1_000_000
/**
 * Deepest s the checker reasons about. fastify-gpt registers forms some hundreds of levels deep
 * (`not` nested 500 deep is accepted); the judge's thread has the stack for these.
 */
export const MAX_FORM_DEPTH = 2048
/** Most values (schemas, keywords' values, enum members...) in an s the checker reasons about. */
export const MAX_FORM_PARTS = 250_000

const QUOTE = 0x22
const BACKSLASH = 0x5c
const SEPARATORS = new Set([0x5b, 0x7b, 0x2c, 0x3a]) // [ { , :

/** An upper bound of the values a JSON text holds: one more than its brackets, commas and colons outside strings. */
export function values (text: Uint8Array): number {
  let count = 1
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const byte = text[i] as number
    if (inString) {
      if (byte === BACKSLASH) i++
      else if (byte === QUOTE) inString = false
    } else if (byte === QUOTE) inString = true
    else if (SEPARATORS.has(byte)) count++
  }
  return count
}

/** The depth (the top is 1) and the number of values of a parsed JSON value, stopping once past the bounds. */
export function extent (value: unknown): { depth: number, parts: number } {
  let depth = 0
  let parts = 0
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [node, level] = stack.pop() as [unknown, number]
    parts++
    if (level > depth) depth = level
    if (depth > MAX_FORM_DEPTH || parts > MAX_FORM_PARTS) break
    if (node !== null && typeof node === 'object') for (const member of Object.values(node)) stack.push([member, level + 1])
  }
  return { depth, parts }
}
