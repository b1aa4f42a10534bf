const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for HTML element content and quoted attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string)

/** Markup: written by `html` (or `markup`), it goes into another `html` as it is. */
export class Html {
  readonly #text: string
  constructor (text: string) { this.#text = text }
  toString (): string { return this.#text }
}

/** What `html` takes: text, escaped; markup, as it is; a list of either, one after the other; nothing. */
export type Part = string | number | Html | readonly Part[] | undefined

const written = (part: Part): string =>
  part === undefined ? '' : part instanceof Html ? part.toString() : Array.isArray(part) ? part.map(written).join('') : escapeHtml(String(part))

/** A template of HTML whose every interpolation is escaped, unless it is markup already. */
export function html (strings: TemplateStringsArray, ...parts: Part[]): Html {
  let text = strings[0] as string
  for (const [index, part] of parts.entries()) text += written(part) + (strings[index + 1] as string)
  return new Html(text)
}

/** Markup made elsewhere by our own code (the inputs, escaped as they are built; the script and style constants). */
export const markup = (text: string): Html => new Html(text)

/** `items`, one a line. */
export const lines = (items: readonly Html[]): Html => new Html(items.join('\n'))
