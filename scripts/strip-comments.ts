// Takes the comments out of the built JavaScript (dist/**/*.js), the last step of `npm run build`. The JavaScript
// ships in the package, and its comments are the source's: src/ keeps them, and dist/**/*.d.ts keeps the doc
// comments an editor shows. Only comments go (and the lines that held nothing else): TypeScript's parser finds them,
// so a comment's look-alike in a string, a template or a regular expression stays.
//   node --import ./test/register.js scripts/strip-comments.ts [dir]   (default dist)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const JSDOC = (node: ts.Node): boolean => node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode

/** Where the comments of a script are: each one's start and end, in order. */
function comments (text: string): Array<[number, number]> {
  const file = ts.createSourceFile('file.js', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS)
  const found = new Map<number, number>()
  const visit = (node: ts.Node): void => {
    if (JSDOC(node)) return
    // every token's trivia: the comments on the lines before it, and those after it on its own line
    for (const range of ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []) found.set(range.pos, range.end)
    for (const range of ts.getTrailingCommentRanges(text, node.getEnd()) ?? []) found.set(range.pos, range.end)
    for (const child of node.getChildren(file)) visit(child)
  }
  visit(file)
  return [...found].sort(([a], [b]) => a - b)
}

const blank = (text: string): boolean => /^[ \t]*$/.test(text)

/** The script without its comments: a comment alone on its lines goes with them, one among code leaves a space. */
export function stripComments (text: string): string {
  let out = ''
  let at = 0
  for (const [start, end] of comments(text)) {
    if (start < at) continue
    const lineStart = text.lastIndexOf('\n', start - 1) + 1
    const lineEnd = text.indexOf('\n', end) === -1 ? text.length : text.indexOf('\n', end)
    const before = text.slice(Math.max(lineStart, at), start)
    if (blank(before) && blank(text.slice(end, lineEnd))) {
      out += text.slice(at, Math.max(lineStart, at))
      at = Math.min(lineEnd + 1, text.length)
    } else if (blank(text.slice(end, lineEnd))) {
      out += text.slice(at, start).trimEnd()
      at = end
    } else {
      // between two tokens, a comment still parts them; one that holds a line break still ends a statement
      out += text.slice(start, end).includes('\n') ? `${text.slice(at, start).trimEnd()}\n` : `${text.slice(at, start)} `
      at = end
    }
  }
  return out + text.slice(at)
}

function scripts (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? scripts(path) : entry.name.endsWith('.js') ? [path] : []
  })
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? fileURLToPath(new URL('../dist', import.meta.url))
  for (const path of scripts(dir)) writeFileSync(path, stripComments(readFileSync(path, 'utf8')))
}
