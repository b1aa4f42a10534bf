// The last step of `npm run build` (scripts/strip-comments.ts): the built JavaScript without its comments, and
// otherwise as the compiler wrote it.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import ts from 'typescript'
import { stripComments } from '../scripts/strip-comments.ts'

const SRC = join(import.meta.dirname, '../src')
const sources = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
  const path = join(dir, entry.name)
  return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
})
const emit = (path: string, removeComments: boolean): string => ts.transpileModule(readFileSync(path, 'utf8'), {
  fileName: path,
  compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, removeComments }
}).outputText
const squeezed = (text: string): string => text.replace(/\s+/g, '')

describe('taking the comments out of the built JavaScript', () => {
  it('leaves of every module of src what TypeScript leaves with removeComments, up to blank space', () => {
    const files = sources(SRC)
    assert.ok(files.length > 100)
    for (const path of files) {
      assert.equal(squeezed(stripComments(emit(path, false))), squeezed(emit(path, true)), path)
    }
  })

  it('keeps what only looks like a comment: in strings, templates and regular expressions', () => {
    const code = "const a = 'https://example.com' // a URL\nconst b = `/* not a comment */`\nconst c = /\\/\\*x/.test(b) / 2\n"
    assert.equal(stripComments(code), "const a = 'https://example.com'\nconst b = `/* not a comment */`\nconst c = /\\/\\*x/.test(b) / 2\n")
  })

  it('drops the lines that held only comments, and keeps tokens apart and statements ended', () => {
    const code = '/** doc */\nfunction f () {\n  // why\n  return/* inline */x\n  /*\n   * more\n   */\n}\nlet y = 1 /* a\n */ + 2\n'
    assert.equal(stripComments(code), 'function f () {\n  return x\n}\nlet y = 1\n + 2\n')
  })
})
