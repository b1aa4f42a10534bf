// Turns the page's browser scripts (src/page/*.browser.js, linted as browser JavaScript) into the
// TypeScript string modules src/page/ imports: the bytes served inline and hashed in the CSP.
// Run: npm run build:page-scripts. `--check` only compares, and fails if a module is stale.
import { readFileSync } from 'node:fs'
import { writeOrCheck } from './generated.ts'

/** A browser script of src/page/ and the module that exports it as a string. */
export interface PageScript {
  readonly source: string
  readonly target: string
  readonly name: string
}

export const PAGE_SCRIPTS: readonly PageScript[] = [
  { source: 'script.browser.js', target: 'script.ts', name: 'SCRIPT' },
  { source: 'live-script.browser.js', target: 'live-script.ts', name: 'LIVE_SCRIPT' },
  { source: 'view-script.browser.js', target: 'view-script.ts', name: 'VIEW_SCRIPT' }
]

const page = new URL('../src/page/', import.meta.url)
const HEADER = /^(?:\/\/(?: .*)?\n)+/
// Inside String.raw every byte stays as written except these: a backtick or `${` would end or
// interpolate the template, a backslash at the end would escape its closing backtick, and a
// carriage return would be read as a line feed.
const UNSAFE = /`|\$\{|\\$|\r/

/**
 * The module of `script`: the browser file's opening `//` lines become the export's doc comment,
 * and the rest, from a line feed on, is the string.
 */
export function generate (script: PageScript, text = readFileSync(new URL(script.source, page), 'utf8')): string {
  const header = HEADER.exec(text)?.[0]
  if (header === undefined) throw new Error(`src/page/${script.source} must open with // lines saying what it is`)
  const body = text.slice(header.length)
  const unsafe = UNSAFE.exec(body)
  if (unsafe !== null) throw new Error(`src/page/${script.source} holds ${JSON.stringify(unsafe[0])}, which a String.raw template cannot keep`)
  const doc = header.trimEnd().split('\n').map((line) => (' * ' + line.slice(3)).trimEnd())
  return [
    `// Generated from src/page/${script.source} by \`npm run build:page-scripts\`: edit that file, not this one.`,
    '/**',
    ...doc,
    ' */',
    `export const ${script.name} = String.raw\``,
    body + '`',
    ''
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const script of PAGE_SCRIPTS) writeOrCheck(new URL(script.target, page), generate(script), 'build:page-scripts')
}
