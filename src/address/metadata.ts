// What an address says of itself to a catalogue (an MCP client's list of tools, an OpenAPI
// document), beside p, m and s: its title, its behaviour hints and its icons. Each is declared by
// the address's author and checked here at registration, never guessed from the form or the act.
import { freezeJson } from '../json/freeze.ts'

type Invalid = (detail: string) => Error

/**
 * MCP's tool hints (2025-03-26 and later, "ToolAnnotations"): what a client may tell its user of
 * a tool before calling it. Hints, not guarantees: nothing checks them.
 */
export interface Annotations {
  /** The act does not change its environment. MCP's default: false. */
  readonly readOnlyHint?: boolean
  /** The act may change or remove what exists (meaningful when not read-only). MCP's default: true. */
  readonly destructiveHint?: boolean
  /** A second act with the same body changes nothing more (meaningful when not read-only). MCP's default: false. */
  readonly idempotentHint?: boolean
  /** The act reaches beyond the host (the web, other services). MCP's default: true. */
  readonly openWorldHint?: boolean
}

/** An icon a client may show beside the tool (MCP 2025-11-25, "Icon"). */
export interface Icon {
  /** An `https:` URL, or a `data:` URI with base64 image data. */
  readonly src: string
  /** The image's media type (`image/png`), where `src` does not say it. */
  readonly mimeType?: string
  /** The sizes it may be shown at: `"48x48"`, or `"any"` for a scalable image. */
  readonly sizes?: readonly string[]
  /** The background it is drawn for. */
  readonly theme?: 'light' | 'dark'
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']

const isPlain = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

export function checkTitle (value: unknown, invalid: Invalid): void {
  if (value !== undefined && (typeof value !== 'string' || value.trim() === '' || /[\r\n]/.test(value))) {
    throw invalid('"title" must be a string of one line, not empty')
  }
}

export function checkAnnotations (value: unknown, invalid: Invalid): void {
  if (value === undefined) return
  if (!isPlain(value)) throw invalid('"annotations" must be an object of MCP\'s hints (readOnlyHint, destructiveHint, idempotentHint, openWorldHint), each a boolean')
  for (const [name, hint] of Object.entries(value)) {
    if (!HINTS.includes(name)) {
      throw invalid(`"annotations.${name}" is not one of MCP's hints: readOnlyHint, destructiveHint, idempotentHint, openWorldHint${name === 'title' ? ' (the title is the option "title")' : ''}`)
    }
    if (typeof hint !== 'boolean') throw invalid(`"annotations.${name}" must be a boolean`)
  }
}

// `data:` with a media type, base64 and its alphabet (MCP: "a data: URI with Base64-encoded image data").
const DATA_URI = /^data:[\w.+-]+\/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,[A-Za-z0-9+/]+={0,2}$/
const MEDIA_TYPE = /^[\w.+-]+\/[\w.+-]+$/
const SIZE = /^(?:[1-9]\d{0,4}x[1-9]\d{0,4}|any)$/
const ICON_MEMBERS = ['src', 'mimeType', 'sizes', 'theme']

/** Checks `icons`, naming the member at fault by its JSON Pointer (`/icons/0/src`). */
export function checkIcons (value: unknown, invalid: Invalid): void {
  if (value === undefined) return
  if (!Array.isArray(value)) throw invalid('"icons" must be an array of { src, mimeType?, sizes?, theme? }')
  value.forEach((icon: unknown, i) => {
    const at = `/icons/${i}`
    if (!isPlain(icon)) throw invalid(`${at} must be an object { src, mimeType?, sizes?, theme? }`)
    for (const name of Object.keys(icon)) {
      if (!ICON_MEMBERS.includes(name)) throw invalid(`${at}/${name} is not a member of an icon (src, mimeType, sizes, theme)`)
    }
    const { src, mimeType, sizes, theme } = icon
    if (typeof src !== 'string' || !(isHttps(src) || DATA_URI.test(src))) throw invalid(`${at}/src must be an https: URL or a data: URI of base64 image data`)
    if (mimeType !== undefined && (typeof mimeType !== 'string' || !MEDIA_TYPE.test(mimeType))) throw invalid(`${at}/mimeType must be a media type such as "image/png"`)
    if (sizes !== undefined) {
      if (!Array.isArray(sizes)) throw invalid(`${at}/sizes must be an array of sizes such as "48x48" or "any"`)
      sizes.forEach((size: unknown, j) => {
        if (typeof size !== 'string' || !SIZE.test(size)) throw invalid(`${at}/sizes/${j} must be a size such as "48x48", or "any"`)
      })
    }
    if (theme !== undefined && theme !== 'light' && theme !== 'dark') throw invalid(`${at}/theme must be "light" or "dark"`)
  })
}

function isHttps (src: string): boolean {
  try {
    const url = new URL(src)
    return url.protocol === 'https:' && url.hostname !== ''
  } catch {
    return false
  }
}

/** A checked option as the settings keep it: a frozen copy, or undefined where it was left out. */
export function frozen<T> (value: unknown, path: string, at: string): T | undefined {
  return value === undefined ? undefined : freezeJson(value, path, at) as T
}
