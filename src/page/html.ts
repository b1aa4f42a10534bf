import { createHash } from 'node:crypto'
import type { RuntimeVerdict } from '../lint/types.ts'
import type { Link } from '../links/option.ts'
import { firstSentence } from '../sentence.ts'
import type { AddressView } from '../types.ts'
import { escapeHtml } from './escape.ts'
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

function conversation (messages: AddressView['messages'], live: Live | undefined): string {
  if (messages.length === 0 && live === undefined) return ''
  const items = messages.map((message) =>
    `<li class="message${ROLES.has(message.role) ? ` ${message.role}` : ''}"><span class="role">${escapeHtml(message.role)}</span>` +
    `<div class="content">${escapeHtml(message.content)}</div></li>`)
  return `<section aria-labelledby="m-title">
<h2 id="m-title">The conversation so far</h2>
${live === undefined ? '<ol class="messages">' : `${liveState(live)}<ol class="messages" id="messages">`}
${items.join('\n')}
</ol>
</section>
`
}

/** The addresses this one names (its `l`, docs/links.md): each a link to go and read, never its form. */
function named (links: readonly Link[]): string {
  if (links.length === 0) return ''
  const items = links.map((link) => `<li><a href="${escapeHtml(link.href)}"><code>${escapeHtml(link.href)}</code></a>` +
    `${link.p === undefined ? '' : ` <span class="content">${escapeHtml(link.p)}</span>`}</li>`)
  return `<section aria-labelledby="l-title">
<h2 id="l-title">Addresses named here</h2>
<p class="lead">Each is an address of its own: open it to read what it takes.</p>
<ul class="links">
${items.join('\n')}
</ul>
</section>
`
}

/** How the page says which members may be left out, when some may. */
function leftOut (inputs: string): string {
  const switches = inputs.includes('class="include"')
    ? '\nA member that may be left out starts left out, and is sent once you fill it in or switch on its <em>include</em>.'
    : ''
  const choices = inputs.includes('data-kind="tristate"')
    ? '\nA true-or-false member that may be left out starts <em>left out</em>: choose <em>true</em> or <em>false</em> to send it.'
    : ''
  return switches + choices
}

const VERDICT_MEANING = {
  refused: 'its runtime refuses the form: an actor using it cannot act',
  loosened: 'it does not enforce all of the form: its actors may send bodies the address refuses',
  exact: 'every body it produces, the address accepts'
}

/** draft §7.1: which constrained decoders produce only what the form admits, as lint found them. */
function runtimeTable (runtimes: readonly RuntimeVerdict[]): string {
  if (runtimes.length === 0) return ''
  const rows = runtimes.map(({ decoder, runtimes, verdict }) =>
    `<tr><th scope="row"><code>${escapeHtml(decoder)}</code></th><td>${escapeHtml(runtimes)}</td>` +
    `<td class="verdict ${verdict}" title="${VERDICT_MEANING[verdict]}">${verdict}</td></tr>`)
  return `<section aria-labelledby="runtimes-title">
<h2 id="runtimes-title">Who can act here</h2>
<p class="lead">What fastify-gpt's lint found for each constrained decoder: <em>refused</em>, ${VERDICT_MEANING.refused};
<em>loosened</em>, ${VERDICT_MEANING.loosened}; <em>exact</em>, ${VERDICT_MEANING.exact}.</p>
<table class="runtimes">
<thead><tr><th scope="col">decoder</th><th scope="col">runtimes</th><th scope="col">verdict</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</section>
`
}

/** The parts in which the page of draft §3.3 and an MCP host's view of it differ. */
interface Parts {
  readonly head: string
  /** Said instead of the prompt; the prompt where undefined. */
  readonly prompt?: string | undefined
  readonly conversation: string
  readonly named: string
  /** What the Act section says to do, and what pressing Act does. */
  readonly lead: string
  /** Attributes of the act form beyond its id. */
  readonly door: string
  /** What follows the Act section in main, and the footer. */
  readonly after: string
  readonly footer: string
  readonly scripts: string
}

const introduction = (prompt: string): string => prompt.trim() === ''
  ? '<p class="prompt empty">This address gives no introduction: the form below says what it takes.</p>'
  : `<p class="prompt">${escapeHtml(prompt)}</p>`

/** The one source of both: the prompt, the conversation, the form's inputs, the JSON body, Act and its outcome. */
function compose (view: AddressView, inputs: string, parts: Parts): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title(view))}</title>
<style>${STYLE}</style>
${parts.head}</head>
<body>
<div class="page">
<header>
<h1>GPT address <code>${escapeHtml(view.path)}</code></h1>
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
`
}

/**
 * The human view of an address (draft §3.3), built once from p, m and s: the prompt as the
 * introduction, the messages as a conversation, the form as inputs that compose the JSON body, a
 * raw JSON editor, an Act button, and the published form itself. Everything from p, m and s is
 * escaped; the one script and the one stylesheet are constants, allowed by hash. `runtimes`, when
 * the address linted its form, is shown as a table of who can act.
 */
export function renderPage (view: AddressView, runtimes: readonly RuntimeVerdict[] = [], links: readonly Link[] = [], live?: Live): Page {
  const here = escapeHtml(view.path)
  const html = compose(view, renderInputs(view.form), {
    head: live === undefined ? '' : liveHead(live),
    conversation: conversation(view.messages, live),
    named: named(links),
    lead: 'Fill in the form and press Act: the page sends the JSON body to this address and shows its answer.',
    door: '',
    after: `<section aria-labelledby="form-title">
<h2 id="form-title">The form</h2>
<p class="lead">What this address takes, as it publishes it in <code>s</code>: a JSON Schema (draft 2020-12).
A body it does not validate is refused, always with the same bare 204.</p>
<pre class="schema"><code>${escapeHtml(shown(view.form))}</code></pre>
</section>
${runtimeTable(runtimes)}`,
    footer: `<footer>
<p>For programs: a GET without <code>Accept: text/html</code> returns <code>{"p", "m", "s"}</code> as JSON, and a POST of the JSON body acts (draft-ferguson-gpt-00).</p>
<pre><code>curl -s <span class="here">${here}</span>
curl -s <span class="here">${here}</span> -d @body.json</code></pre>
</footer>
`,
    scripts: `<script>${SCRIPT}</script>\n${live === undefined ? '' : `<script>${LIVE_SCRIPT}</script>\n`}`
  })
  return { html, csp: live === undefined ? CSP : LIVE_CSP }
}

/** The most bytes an MCP host's view of an address takes (docs/html-view.md). */
export const VIEW_MAX_BYTES = 512 * 1024

/** What a view needs of its tool: its name, and whether its arguments hold the body as `value`. */
export interface ViewTool {
  readonly name: string
  readonly wrapped: boolean
}

const LEFT_OUT = (what: string, where: string): string =>
  `<p class="lead">${what} is too long to show here: ${where}.</p>\n`

/**
 * The address's page as an MCP host shows it inline (MCP Apps, "UI Resource Format"): the page
 * above, whose Act goes through the host's tools/call (view-script.browser.js), without what a
 * view in a host's frame cannot use (its links, the published form, which is the tool's
 * inputSchema, the lines for programs). The host's CSP governs it (by default inline script and
 * style, no connection). Within VIEW_MAX_BYTES: past it, the conversation, then the inputs (the
 * JSON body stays), then the prompt are left out, each saying where it is still to be read.
 */
export function renderView (view: AddressView, tool: ViewTool): string {
  const inputs = renderInputs(view.form)
  const door = ` data-tool="${escapeHtml(tool.name)}"${tool.wrapped ? ' data-wrapped' : ''}`
  const scripts = `<script>${VIEW_SCRIPT}</script>\n<script>${SCRIPT}</script>\n`
  const acts = 'press Act: the view asks the MCP host to call this address\'s tool with the JSON body, and shows its answer.'
  const make = (left: number): string => compose(left > 2 ? { ...view, prompt: '', title: undefined } : view, left > 1 ? renderBodyInput('the form\'s inputs are too many to show here') : inputs, {
    head: '',
    prompt: left > 2 ? LEFT_OUT('The prompt', 'the tool\'s description holds it') : undefined,
    conversation: left > 0 ? LEFT_OUT('The conversation so far', 'the tool\'s description holds it') : conversation(view.messages, undefined),
    named: '',
    lead: `Fill in the form and ${acts}`,
    door,
    after: '',
    footer: '',
    scripts
  })
  let html = make(0)
  for (let left = 1; left <= 3 && Buffer.byteLength(html) > VIEW_MAX_BYTES; left++) html = make(left)
  return html
}
