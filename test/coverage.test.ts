// The coverage gate's exclusions (.c8rc.json): every file left out and every line c8 is told to
// ignore is named in the config with its reason, and each ignore comment says why in itself.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const config = JSON.parse(readFileSync(join(ROOT, '.c8rc.json'), 'utf8')) as {
  include: string[]
  exclude: string[]
  lines: number
  statements: number
  functions: number
  'excluded-because': Record<string, string>
  'ignored-lines': Record<string, number | string>
}

function sources (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [relative(ROOT, path)] : []
  })
}

// As v8-to-istanbul reads them: /* c8 ignore next [N] */ and /* c8 ignore start */ ... stop.
const IGNORE = /\/\*\s*(?:[cv]8|node:coverage)\s+ignore\b([^*]*)\*\//g

describe('the coverage gate', () => {
  it('gates 100% of lines, statements and functions', () => {
    assert.deepEqual([config.lines, config.statements, config.functions], [100, 100, 100])
  })

  it('names every excluded file with its reason', () => {
    assert.deepEqual(Object.keys(config['excluded-because']).sort(), [...config.exclude].sort())
    for (const [file, why] of Object.entries(config['excluded-because'])) {
      assert.ok(why.length >= 40, `${file}: a reason, not a word`)
      assert.ok(sources(join(ROOT, 'src')).includes(file), `${file} exists`)
    }
  })

  it('lists every ignore comment in src, each giving its reason in the comment itself', () => {
    const found: Record<string, number> = {}
    for (const file of sources(join(ROOT, 'src'))) {
      if (config.exclude.includes(file)) continue
      for (const [, rest] of readFileSync(join(ROOT, file), 'utf8').matchAll(IGNORE)) {
        assert.match(rest!, /^ next( \d+)?: .{40,}$/, `${file}: "c8 ignore${rest}" says what it covers and why`)
        found[file] = (found[file] ?? 0) + 1
      }
    }
    const { why, ...listed } = config['ignored-lines']
    assert.equal(typeof why, 'string')
    assert.deepEqual(found, listed)
  })
})
