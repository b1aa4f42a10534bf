// What the catalog calls an address: read from the address's own prompt, so that it cannot drift
// from it (draft §7.3), as a link's `p` is (docs/links.md).
import { describeAddress } from '../links/describe.ts'

/** What the catalog reads of an address to title it. */
export interface Titled {
  readonly prompt: string
}

/**
 * An address's title in the catalog (RFC 8288 §3.4.1 `title`): its prompt's first sentence, cut at
 * 200 characters; undefined for an empty prompt. The one place a title is made: an option naming
 * an address's title would be read here first.
 */
export function titleOf (address: Titled): string | undefined {
  return describeAddress(address.prompt)
}
