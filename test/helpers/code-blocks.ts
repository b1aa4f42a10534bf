// The fenced code blocks of a Markdown file, each with the HTML comment marker right above it.
//   <!-- check: commonjs -->   the next block is checked in a CommonJS project (ESM otherwise)
//   <!-- check: run -->        the next block is a node:test file: checked, then run
//   <!-- check: tsconfig -->   the next block is the checked projects' tsconfig.json
//   <!-- check: fragment -->   the next block cannot compile alone (code of the source the package
//                              does not export): shown, never compiled; the text says why
//   <!-- check: recipe -->     the next block is a file of the recipe app, named by its first line
//                              (`// routes/notes/index.ts: ...`): checked, then built and run

import { readdirSync } from 'node:fs'
import { join } from 'node:path'

/** The documents whose blocks are checked: README.md and docs/*.md of the checkout at `root`. */
export const documents = (root: string): string[] =>
  ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)]

export interface Block {
  /** 1-based line of the opening fence. */
  readonly line: number
  readonly language: string
  /** The marker's word (`commonjs`, `run`, `tsconfig`, `fragment`), or '' without one. */
  readonly check: string
  readonly code: string
}

const FENCE = /^```(\S*)\s*$/
const MARKER = /^<!-- check: (\S+) -->$/

export function codeBlocks (markdown: string): Block[] {
  const lines = markdown.split('\n')
  const blocks: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] as string)
    if (open === null) continue
    const end = lines.findIndex((text, j) => j > i && text === '```')
    if (end === -1) throw new Error(`line ${i + 1}: a code block is never closed`)
    const check = MARKER.exec(lines[i - 1] ?? '')?.[1] ?? ''
    blocks.push({ line: i + 1, language: open[1] as string, check, code: lines.slice(i + 1, end).join('\n') + '\n' })
    i = end
  }
  return blocks
}
