import { RegExpParser, visitRegExpAST } from '@eslint-community/regexpp'
import type { Element, Node } from '@eslint-community/regexpp/ast'

const parser = new RegExpParser({ ecmaVersion: 2025 })

/**
 * Whether every text a `pattern` admits is one line: each alternative is anchored at both ends
 * (`^…$`), and nothing in it matches a line feed or a carriage return, the characters a one-line
 * input drops. Patterns compile with the `u` flag (as the validator compiles them); one that does
 * not parse here is not one line.
 */
export function oneLine (pattern: string): boolean {
  let ast
  try {
    ast = parser.parsePattern(pattern, 0, pattern.length, { unicode: true })
  } catch {
    return false
  }
  const is = (element: Element | undefined, kind: 'start' | 'end'): boolean => element?.type === 'Assertion' && element.kind === kind
  const anchored = ast.alternatives.every(({ elements }) => is(elements[0], 'start') && is(elements.at(-1), 'end'))
  if (!anchored) return false
  let breaks = false
  // A class is tested whole: what it holds means something else outside it (`\b`, `\-`).
  const check = (node: Node): void => {
    if (node.parent?.type !== 'CharacterClass' && node.parent?.type !== 'CharacterClassRange') breaks ||= matchesBreak(node.raw)
  }
  visitRegExpAST(ast, { onCharacterEnter: check, onCharacterClassEnter: check, onCharacterSetEnter: check })
  return !breaks
}

/** A character, class or set, written as in the pattern, tested on its own against a line break. */
function matchesBreak (raw: string): boolean {
  try {
    const one = new RegExp(`^(?:${raw})$`, 'u')
    return one.test('\n') || one.test('\r')
    /* c8 ignore next 3: every piece of a pattern that parsed under the u flag compiles alone; should the parser and the engine disagree, the pattern is not called one line */
  } catch {
    return true
  }
}
