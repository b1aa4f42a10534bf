// Texts that tests and benchmarks share, the same on every run.

/**
 * A text of `length` characters a and b drawn by a linear congruential generator from `seed`: no
 * run a pattern of a and b can count on, so every position may start or end a match.
 */
export function ab (length: number, seed: number): string {
  let x = seed
  let text = ''
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff
    text += (x >> 16) & 1 ? 'a' : 'b'
  }
  return text
}
