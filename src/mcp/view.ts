// An address's page as an MCP App (the extension io.modelcontextprotocol/ui, specification
// 2026-01-26, docs/mcp.md): its tool names a `ui://` resource in `_meta.ui.resourceUri`, which
// reads as the page made for a host's sandboxed frame (src/page/html.ts renderView). Not for an
// address with `html: false`.
import type { Edition } from '../address/address.ts'
import type { JsonObject } from '../json/value.ts'
import { renderView } from '../page/html.ts'
import { titleOf } from '../sentence.ts'
import type { Hosted } from './registry.ts'

/** The extension's identifier, under which a 2026-07-28 server declares it ("Capability Negotiation"). */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui'

/** "UI Resource Format": a view's MIME type. */
export const VIEW_TYPE = 'text/html;profile=mcp-app'

/** The scheme the extension reserves for views ("Reservations in MCP"). */
export const UI_SCHEME = 'ui://'
const SCHEME = `${UI_SCHEME}fastify-gpt/`

/** Whether the address at `hosted` has a view: it has a page. */
export const hasView = (hosted: Hosted): boolean => hosted.settings.html !== false

/** The URI of the view of the tool `name` (tool names are URI-safe: src/mcp/tools.ts). */
export const viewUri = (name: string): string => SCHEME + name

/** The tool name a view's URI names, if it is one of ours. */
export const viewNamed = (uri: string): string | undefined => uri.startsWith(SCHEME) ? uri.slice(SCHEME.length) : undefined

/** The view of the tool `name` in resources/list. */
export function viewResource (name: string, hosted: Hosted): JsonObject {
  return {
    uri: viewUri(name),
    name: `${name}_view`,
    description: `The page of ${hosted.path}, to act on it in the host: a labelled input for each member of its form.`,
    mimeType: VIEW_TYPE
  }
}

/** A view's text for `edition`: the page, acting through the host's tools/call of the tool `name`. */
export function viewOf (edition: Edition, name: string, hosted: Hosted, wrapped: boolean): string {
  const { content } = edition
  return renderView({ path: hosted.path, title: titleOf(hosted.settings.title, content.prompt), ...content }, { name, wrapped })
}

/** A view's `_meta.ui` in resources/read: a border from the host, since the page has none of its own. */
export const VIEW_META = { ui: { prefersBorder: true } }
