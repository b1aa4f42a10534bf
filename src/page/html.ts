import { createHash } from 'node:crypto'
import type { RuntimeVerdict } from '../lint/types.ts'
import type { Link } from '../links/option.ts'
import { firstSentence } from '../sentence.ts'
import type { AddressView } from '../types.ts'
import { escapeHtml, html, lines, markup, type Html } from './escape.ts'
import { renderBodyInput, renderInputs } from './inputs.ts'
import { LIVE_SCRIPT, liveHead, liveState, type Live } from './live.ts'
import { SCRIPT } from './script.ts'
import { VIEW_SCRIPT } from './view-script.ts'
import { STYLE } from './style.ts'

export { escapeHtml }

/** An HTML page and the Content-Security-Policy that admits exactly its inline script and style. */
export interface Page {
  readonly html: string
  readonly csp: string
}

const hash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`

/**
 * The page's policy: nothing loads but its scripts and its one stylesheet (by hash), it connects
 * only to its own origin (the act, a job's stream), and no DOM sink takes a string as HTML
 * (Trusted Types).
 */
function policy (scripts: readonly string[]): string {
  return [
    "default-src 'none'",
    `script-src ${scripts.map(hash).join(' ')}`,
    `style-src ${hash(STYLE)}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'"
  ].join('; ')
}

export const CSP = policy([SCRIPT])
/** The policy of a running job's page: its second script, which follows the job, allowed too. */
const LIVE_CSP = policy([SCRIPT, LIVE_SCRIPT])

const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi
const INLINE_STYLE = /<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi
const HAS_SRC = /\ssrc\s*=/i

/**
 * The policy of a custom page (the `html` option as a function): its inline `<script>` and
 * `<style>` elements by hash, scripts, styles, images and fonts from its own origin, connections
 * to its own origin (the act), nothing else. Inline event handlers and style attributes are
 * blocked; a page that needs them sets its own policy.
 */
export function customPolicy (page: string): string {
  const scripts = [...page.matchAll(INLINE_SCRIPT)].filter((match) => !HAS_SRC.test(match[1] ?? '')).map((match) => hash(match[2] ?? ''))
  const styles = [...page.matchAll(INLINE_STYLE)].map((match) => hash(match[1] ?? ''))
  return [
    "default-src 'none'",
    ["script-src 'self'", ...new Set(scripts)].join(' '),
    ["style-src 'self'", ...new Set(styles)].join(' '),
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'"
  ].join('; ')
}

// Roles with a look of their own; any other role is shown as written, in the default look.
const ROLES = new Set(['user', 'assistant', 'system', 'developer', 'tool'])

/** How many bytes of indentation the form may take in the page before it is shown compact. */
export const MAX_INDENT_BYTES = 1024 * 1024

/**
 * The form as the page shows it: indented, unless the indentation alone would pass
 * MAX_INDENT_BYTES. Each line is indented by its depth, so a large, deep form would grow by
 * (lines) x (depth): a list of 100,000 items 250 levels down, 50 MB of spaces.
 */
function shown (form: AddressView['form']): string {
  let indent = 0
  const stack: Array<[unknown, number]> = [[form, 0]]
  for (let top = stack.pop(); top !== undefined && indent <= MAX_INDENT_BYTES; top = stack.pop()) {
    const [value, depth] = top
    indent += 2 * depth
    if (value !== null && typeof value === 'object') {
      indent += 2 * depth // the closing bracket's line
      for (const item of Object.values(value)) stack.push([item, depth + 1])
    }
  }
  return JSON.stringify(form, null, indent <= MAX_INDENT_BYTES ? 2 : undefined)
}

/** The page's title: what the address is called (its title, else its prompt's first sentence), then the path. */
function title (view: AddressView): string {
  const called = view.title ?? firstSentence(view.prompt)
  return called === undefined ? `GPT address ${view.path}` : `${called} · ${view.path}`
}

function conversation (messages: AddressView['messages'], live: Live | undefined): Html | undefined {
  if (messages.length === 0 && live === undefined) return undefined
  const items = messages.map((message) =>
    html`<li class="message${ROLES.has(message.role) ? ` ${message.role}` : ''}"><span class="role">${message.role}</span><div class="content">${message.content}</div></li>`)
  return html`<section aria-labelledby="m-title">
<h2 id="m-title">The conversation so far</h2>
${live === undefined ? html`<ol class="messages">` : html`${liveState(live)}<ol class="messages" id="messages">`}
${lines(items)}
</ol>
</section>
`
}

/** The addresses this one names (its `l`, docs/links.md): each a link to go and read, never its form. */
function named (links: readonly Link[]): Html | undefined {
  if (links.length === 0) return undefined
  const items = links.map((link) => html`<li><a href="${link.href}"><code>${link.href}</code></a>${link.p === undefined ? undefined : html` <span class="content">${link.p}</span>`}</li>`)
  return html`<section aria-labelledby="l-title">
<h2 id="l-title">Addresses named here</h2>
<p class="lead">Each is an address of its own: open it to read what it takes.</p>
<ul class="links">
${lines(items)}
</ul>
</section>
`
}

/** How the page says which members may be left out, when some may. */
function leftOut (inputs: Html): Html {
  const written = inputs.toString()
  const switches = written.includes('class="include"')
    ? html`\nA member that may be left out starts left out, and is sent once you fill it in or switch on its <em>include</em>.`
    : undefined
  const choices = written.includes('data-kind="tristate"')
    ? html`\nA true-or-false member that may be left out starts <em>left out</em>: choose <em>true</em> or <em>false</em> to send it.`
    : undefined
  return html`${switches}${choices}`
}

const VERDICT_MEANING = {
  refused: 'its runtime refuses the form: an actor using it cannot act',
  loosened: 'it does not enforce all of the form: its actors may send bodies the address refuses',
  exact: 'every body it produces, the address accepts'
}

/** draft §7.1: which constrained decoders produce only what the form admits, as lint found them. */
function runtimeTable (runtimes: readonly RuntimeVerdict[]): Html | undefined {
  if (runtimes.length === 0) return undefined
  const rows = runtimes.map(({ decoder, runtimes, verdict }) =>
    html`<tr><th scope="row"><code>${decoder}</code></th><td>${runtimes}</td><td class="verdict ${verdict}" title="${VERDICT_MEANING[verdict]}">${verdict}</td></tr>`)
  return html`<section aria-labelledby="runtimes-title">
<h2 id="runtimes-title">Who can act here</h2>
<p class="lead">What fastify-gpt's lint found for each constrained decoder: <em>refused</em>, ${VERDICT_MEANING.refused};
<em>loosened</em>, ${VERDICT_MEANING.loosened}; <em>exact</em>, ${VERDICT_MEANING.exact}.</p>
<table class="runtimes">
<thead><tr><th scope="col">decoder</th><th scope="col">runtimes</th><th scope="col">verdict</th></tr></thead>
<tbody>
${lines(rows)}
</tbody>
</table>
</section>
`
}

/** The parts in which the page of draft §3.3 and an MCP host's view of it differ. */
interface Parts {
  readonly head?: Html | undefined
  /** Said instead of the prompt; the prompt where undefined. */
  readonly prompt?: Html | undefined
  readonly conversation: Html | undefined
  readonly named?: Html | undefined
  /** What the Act section says to do, and what pressing Act does. */
  readonly lead: string
  /** Attributes of the act form beyond its id. */
  readonly door?: Html | undefined
  /** What follows the Act section in main, and the footer. */
  readonly after?: Html | undefined
  readonly footer?: Html | undefined
  readonly scripts: Html
}

const introduction = (prompt: string): Html => prompt.trim() === ''
  ? html`<p class="prompt empty">This address gives no introduction: the form below says what it takes.</p>`
  : html`<p class="prompt">${prompt}</p>`

/** The one source of both: the prompt, the conversation, the form's inputs, the JSON body, Act and its outcome. */
function compose (view: AddressView, inputs: Html, parts: Parts): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>${title(view)}</title>
<style>${markup(STYLE)}</style>
${parts.head}</head>
<body>
<div class="page">
<header>
<h1>GPT address <code>${view.path}</code></h1>
${parts.prompt ?? introduction(view.prompt)}
</header>
<main>
${parts.conversation}${parts.named}<section aria-labelledby="act-title">
<h2 id="act-title">Act</h2>
<p class="lead">${parts.lead}${leftOut(inputs)}</p>
<noscript><p>Acting from this page needs JavaScript. Without it, POST the JSON body to this address (see below).</p></noscript>
<form id="act" class="compose"${parts.door} novalidate>
<div class="inputs">
${inputs}
</div>
<div class="side needs-script">
<label class="body-label" for="body">JSON body</label>
<div id="body-note" class="hint"></div>
<textarea id="body" class="code" rows="12" spellcheck="false" autocapitalize="off" aria-describedby="body-note"></textarea>
<button type="button" id="from-inputs" hidden>Write it from the inputs</button>
<button type="submit" id="act-button">Act</button>
<div id="outcome" class="outcome" role="status" aria-live="polite"></div>
</div>
</form>
</section>
${parts.after}</main>
${parts.footer}</div>
${parts.scripts}</body>
</html>
`.toString()
}

/**
 * The human view of an address (draft §3.3), built once from p, m and s: the prompt as the
 * introduction, the messages as a conversation, the form as inputs that compose the JSON body, a
 * raw JSON editor, an Act button, and the published form itself. Everything from p, m and s is
 * escaped by construction (`html`: only markup made by our code goes in as it is); the one script
 * and the one stylesheet are constants, allowed by hash. `runtimes`, when
 * the address linted its form, is shown as a table of who can act.
 */
export function renderPage (view: AddressView, runtimes: readonly RuntimeVerdict[] = [], links: readonly Link[] = [], live?: Live): Page {
  const page = compose(view, markup(renderInputs(view.form)), {
    head: live === undefined ? undefined : liveHead(live),
    conversation: conversation(view.messages, live),
    named: named(links),
    lead: 'Fill in the form and press Act: the page sends the JSON body to this address and shows its answer.',
    after: html`<section aria-labelledby="form-title">
<h2 id="form-title">The form</h2>
<p class="lead">What this address takes, as it publishes it in <code>s</code>: a JSON Schema (draft 2020-12).
A body it does not validate is refused, always with the same bare 204.</p>
<pre class="schema"><code>${shown(view.form)}</code></pre>
</section>
${runtimeTable(runtimes)}`,
    footer: html`<footer>
<p>For programs: a GET without <code>Accept: text/html</code> returns <code>{"p", "m", "s"}</code> as JSON, and a POST of the JSON body acts (draft-ferguson-gpt-00).</p>
<pre><code>curl -s <span class="here">${view.path}</span>
curl -s <span class="here">${view.path}</span> -d @body.json</code></pre>
</footer>
`,
    scripts: html`<script>${markup(SCRIPT)}</script>\n${live === undefined ? undefined : html`<script>${markup(LIVE_SCRIPT)}</script>\n`}`
  })
  return { html: page, csp: live === undefined ? CSP : LIVE_CSP }
}

/** The most bytes an MCP host's view of an address takes (docs/html-view.md). */
export const VIEW_MAX_BYTES = 512 * 1024

/** What a view needs of its tool: its name, and whether its arguments hold the body as `value`. */
export interface ViewTool {
  readonly name: string
  readonly wrapped: boolean
}

const leftOutHere = (what: string): Html => html`<p class="lead">${what} is too long to show here: the tool's description holds it.</p>\n`

/**
 * The address's page as an MCP host shows it inline (MCP Apps, "UI Resource Format"): the page
 * above, whose Act goes through the host's tools/call (view-script.browser.js), without what a
 * view in a host's frame cannot use (its links, the published form, which is the tool's
 * inputSchema, the lines for programs). The host's CSP governs it (by default inline script and
 * style, no connection). Within VIEW_MAX_BYTES: past it, the conversation, then the inputs (the
 * JSON body stays), then the prompt are left out, each saying where it is still to be read.
 */
export function renderView (view: AddressView, tool: ViewTool): string {
  const inputs = markup(renderInputs(view.form))
  const door = html` data-tool="${tool.name}"${tool.wrapped ? html` data-wrapped` : undefined}`
  const scripts = html`<script>${markup(VIEW_SCRIPT)}</script>\n<script>${markup(SCRIPT)}</script>\n`
  const make = (left: number): string => compose(left > 2 ? { ...view, prompt: '', title: undefined } : view,
    left > 1 ? markup(renderBodyInput('the form\'s inputs are too many to show here')) : inputs, {
      prompt: left > 2 ? leftOutHere('The prompt') : undefined,
      conversation: left > 0 ? leftOutHere('The conversation so far') : conversation(view.messages, undefined),
      lead: 'Fill in the form and press Act: the view asks the MCP host to call this address\'s tool with the JSON body, and shows its answer.',
      door,
      scripts
    })
  let page = make(0)
  for (let left = 1; left <= 3 && Buffer.byteLength(page) > VIEW_MAX_BYTES; left++) page = make(left)
  return page
}
