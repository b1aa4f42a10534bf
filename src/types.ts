// The types that more than one room names: what an address publishes (draft §3.2), and the view a
// custom HTML page is built from. They live below every room, so none imports another for them.
import type { JsonObject } from './json/value.ts'

/** One prior message of the arrival's `m` (draft §3.2). */
export interface Message {
  readonly role: string
  readonly content: string
}

/** What an address publishes: p, m and s (draft §3.2). */
export interface Content {
  readonly prompt: string
  readonly messages: readonly Message[]
  readonly form: JsonObject
}

/** A custom HTML page with headers of its own (they replace the defaults of docs/html-view.md). */
export interface HtmlPage {
  readonly body: string
  readonly headers?: Readonly<Record<string, string>>
}

/** What a custom HTML view is built from: the content and where it is served. */
export interface AddressView extends Content {
  /** The address's path on the host, e.g. `/poll` (`/` at the root). */
  readonly path: string
  /** What the address is called: its option `title`, else the first sentence of `prompt`; none where it has neither. */
  readonly title?: string | undefined
}
