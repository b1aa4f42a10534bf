// What an address is called, read from its own prompt so that it cannot drift from it (draft §7.3:
// a description nothing checks invites reliance): what a link says of it, and its title where the
// address declares none (the page's <title>, its MCP tool's title, its OpenAPI summary).

/** Most characters of a derived description: an actor weighing links reads one line of each. */
export const DESCRIBED = 200

// A sentence ends at . ! or ? followed by a space or the end of the line.
const SENTENCE = /^(.*?[.!?])(?:\s|$)/

/**
 * The prompt's first sentence (of its first non-empty line), cut at a word past 200 characters with
 * an ellipsis; undefined for an empty prompt (the address gives no introduction).
 */
export function firstSentence (prompt: string): string | undefined {
  const line = prompt.split('\n').map((text) => text.trim()).find((text) => text !== '')
  if (line === undefined) return undefined
  const sentence = SENTENCE.exec(line)?.[1] ?? line
  if (sentence.length <= DESCRIBED) return sentence
  const cut = sentence.slice(0, DESCRIBED - 1)
  const space = cut.lastIndexOf(' ')
  return `${(space > DESCRIBED / 2 ? cut.slice(0, space) : cut).trimEnd()}…`
}

/** What an address is called: its `title`, else its prompt's first sentence; undefined where it has neither. */
export function titleOf (title: string | undefined, prompt: string): string | undefined {
  return title ?? firstSentence(prompt)
}
