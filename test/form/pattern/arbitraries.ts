// Random patterns for the matcher's property tests, built of the pieces each test chooses.
import fc from 'fast-check'

/**
 * Patterns of up to three alternatives, each a sequence of 1 to `longest` pieces: a unit with a
 * quantifier, an assertion, or a group of such alternatives with a quantifier, nested twice at most.
 */
export function patternOf (unit: fc.Arbitrary<string>, quantifier: fc.Arbitrary<string>, assertions: readonly string[], longest: number): fc.Arbitrary<string> {
  return fc.letrec<{ piece: string, sequence: string, alternatives: string }>(tie => ({
    piece: fc.oneof({ depthIdentifier: 'pattern', maxDepth: 2 },
      fc.tuple(unit, quantifier).map(([u, q]) => u + q),
      fc.constantFrom(...assertions),
      fc.tuple(tie('alternatives'), quantifier).map(([body, q]) => `(?:${body})${q}`)),
    sequence: fc.array(tie('piece'), { minLength: 1, maxLength: longest, depthIdentifier: 'pattern' }).map(ps => ps.join('')),
    alternatives: fc.array(tie('sequence'), { minLength: 1, maxLength: 3, depthIdentifier: 'pattern' }).map(xs => xs.join('|'))
  })).alternatives
}
