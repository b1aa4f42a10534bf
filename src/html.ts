import { createHash } from 'node:crypto'
import type { AddressView } from './options.ts'

/** An HTML page and the Content-Security-Policy that admits exactly its inline style. */
export interface Page {
  readonly html: string
  readonly csp: string
}

const STYLE = `
:root { color-scheme: light dark; font: 16px/1.5 system-ui, sans-serif; }
body { max-width: 46rem; margin: 0 auto; padding: 1rem; }
pre { overflow-x: auto; padding: .75rem; border: 1px solid #8884; border-radius: .375rem; }
.message { border-left: 3px solid #8886; padding-left: .75rem; margin: .5rem 0; white-space: pre-wrap; }
.role { font-weight: 600; }
`

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for HTML element content and quoted attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string)

const hash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`

/**
 * The human view of an address (draft §3.3): the prompt, the messages and the form, as text.
 * Everything from p, m and s is escaped; the page runs no script.
 */
export function renderPage (view: AddressView): Page {
  const messages = view.messages.map((message) =>
    `<div class="message"><span class="role">${escapeHtml(message.role)}</span>\n${escapeHtml(message.content)}</div>`
  ).join('\n')
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GPT address ${escapeHtml(view.path)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>GPT address <code>${escapeHtml(view.path)}</code></h1>
<p>${escapeHtml(view.prompt)}</p>
${messages === '' ? '' : `<h2>Messages</h2>\n${messages}`}
<h2>Form</h2>
<p>POST a JSON body that validates against this schema. Send <code>Accept: application/json</code> to get the arrival as JSON.</p>
<pre>${escapeHtml(JSON.stringify(view.form, null, 2))}</pre>
</main>
</body>
</html>
`
  return { html, csp: `default-src 'none'; style-src ${hash(STYLE)}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'` }
}
