// Runs the JSON Schema Test Suite (draft 2020-12) through the form compiler. For every schema,
// either registration refuses it (fail closed, draft §5.2 (4)) or the compiled validator decides
// every test case as the suite does. Any other outcome is a form we would enforce wrongly.
//   npm run check:schema-suite -- <JSON-Schema-Test-Suite>/tests/draft2020-12
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { compileForm, freezeJson, type JsonObject } from '../src/form/compile.ts'
import { renderPage } from '../src/page/html.ts'
import { parse } from '../src/parse/parse.ts'

// Where CI keeps the suite (.ci/run): the shared test data beside the checkout.
const root = process.argv[2] ?? join(import.meta.dirname, '../../shared/testdata/JSON-Schema-Test-Suite/tests/draft2020-12')

interface Case { description: string, data: unknown, valid: boolean }
interface Group { description: string, schema: unknown, tests: Case[] }

const files = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
  const path = join(dir, name)
  return statSync(path).isDirectory() ? files(path) : name.endsWith('.json') ? [path] : []
})

// format.json tests format as an annotation; fastify-gpt asserts formats (docs/decisions.md), and
// optional/format/ holds the assertion tests it is held to instead.
const ANNOTATION_ONLY = new Set(['format.json'])

if (!existsSync(root) || !statSync(root).isDirectory() || files(root).length === 0) {
  console.error(`check:schema-suite: no JSON Schema Test Suite cases (*.json) at ${root}

It needs the path of the suite's tests/draft2020-12 folder:
  git clone --depth 1 https://github.com/json-schema-org/JSON-Schema-Test-Suite /tmp/suite
  npm run check:schema-suite -- /tmp/suite/tests/draft2020-12
Without a path it looks where CI keeps the suite: ../shared/testdata/JSON-Schema-Test-Suite beside
this checkout (.ci/run).`)
  process.exit(2)
}

let enforced = 0
let policy = 0
let refused = 0
const wrong: string[] = []
const refusals = new Map<string, number>()
for (const file of files(root)) {
  const label = file.slice(root.length + 1)
  if (ANNOTATION_ONLY.has(label)) continue
  for (const group of JSON.parse(readFileSync(file, 'utf8')) as Group[]) {
    const schema = typeof group.schema === 'boolean' ? (group.schema ? {} : { not: {} }) : group.schema
    let validate
    try {
      validate = compileForm(freezeJson(schema, label), label)
    } catch (error) {
      refused++
      const code = (error as { code?: string }).code ?? 'other'
      refusals.set(`${label} ${code}`, (refusals.get(`${label} ${code}`) ?? 0) + 1)
      continue
    }
    enforced++
    // The HTML view of every enforced form renders, and stays bounded (docs/html-view.md).
    const page = renderPage({ path: '/', prompt: '', messages: [], form: schema as JsonObject })
    if (page.html.length > 1_000_000) wrong.push(`${label}: ${group.description}: the page is ${page.html.length} bytes`)
    for (const test of group.tests) {
      // What reaches the validator is what the parser accepts: bodies it refuses by policy (such as
      // integers past 2^53 or "__proto__") never get there.
      try {
        parse(Buffer.from(JSON.stringify(test.data)))
      } catch {
        policy++
        continue
      }
      if (validate(test.data) !== test.valid) wrong.push(`${label}: ${group.description}: ${test.description} (expected ${test.valid})`)
    }
  }
}

console.log(`schemas enforced: ${enforced}, refused at registration: ${refused}; cases refused by the parser's policy: ${policy}`)
for (const [where, count] of [...refusals].sort()) console.log(`  refused ${count}x ${where}`)
if (wrong.length > 0) {
  console.log(`wrongly decided cases: ${wrong.length}`)
  for (const line of wrong) console.log(`  ${line}`)
  process.exitCode = 1
} else {
  console.log('no case decided wrongly')
}
