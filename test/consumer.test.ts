// The documentation's code, pasted unchanged into fresh projects that install the packed package:
// every js and ts block of README.md and docs/*.md is type-checked with `tsc --strict` and without
// skipLibCheck, as TypeScript (a js block must hold as both), and the test examples are run.
// Blocks are read from the documents now, never copied here. How a block is checked is said by its
// language and the marker above it (test/helpers/code-blocks.ts): sh and text are shell and
// output; js and ts are checked in an ESM project, or in a CommonJS one under
// `<!-- check: commonjs -->`, and also run with `node --test` under `<!-- check: run -->`; a block
// under `<!-- check: fragment -->` cannot compile alone and is not compiled (rare: say why); a
// block under `<!-- check: recipe -->` is a file of the recipe app, checked here as any ESM block
// and built and run by test/recipe.test.ts; the README's json block under
// `<!-- check: tsconfig -->` is every project's tsconfig.json. Anything else fails. The projects
// are made by test/helpers/packed.ts: their look-ups climb to this checkout's node_modules.
// With CONSUMER_TYPES naming a folder that npm installed a TypeScript and an @types/node into
// (`npm install --prefix <folder> typescript@5.8 @types/node@20`), the code is type-checked with
// those instead, and not run (what runs does not depend on them): CI's matrix (.ci/run).
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { codeBlocks, documents, type Block } from './helpers/code-blocks.ts'
import { compilerIn, failure, makeProject, pack, root } from './helpers/packed.ts'
import { need } from './helpers/test-packages.js'

// The recipe's app imports @fastify/swagger-ui, one of the packages only the tests need.
need('@fastify/swagger-ui')

const matrix = process.env['CONSUMER_TYPES']
const modules = join(matrix ?? root, 'node_modules')
const { tsc, named: compiler } = compilerIn(modules)

interface Located extends Block { readonly file: string }
const blocks: Located[] = documents(root).flatMap((document) =>
  codeBlocks(readFileSync(join(root, document), 'utf8'))
    .map((block) => ({ ...block, file: `${document.replace(/\W/g, '-')}-line-${block.line}.ts` })))

const isShell = (block: Block): boolean => block.language === 'sh' || block.language === 'text'
const isCode = (block: Block): boolean => block.language === 'js' || block.language === 'ts'
const isTsconfig = (block: Block): boolean => block.language === 'json' && block.check === 'tsconfig'

const tsconfigs = blocks.filter(isTsconfig)
const projects = [
  { kind: 'ESM', type: 'module', blocks: blocks.filter((b) => isCode(b) && ['', 'run', 'recipe'].includes(b.check)) },
  { kind: 'CommonJS', type: 'commonjs', blocks: blocks.filter((b) => isCode(b) && b.check === 'commonjs') }
]

describe('the documentation, pasted into fresh projects', { concurrency: true }, () => {
  let dir = ''
  let tarball = ''

  before(async () => {
    ({ dir, tarball } = await pack('run-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('says how every code block is checked, and has one tsconfig for hosts', () => {
    const accounted = (b: Block): boolean => isShell(b) || isTsconfig(b) || (isCode(b) && ['', 'commonjs', 'run', 'fragment', 'recipe'].includes(b.check))
    assert.deepEqual(blocks.filter((b) => !accounted(b)).map((b) => `${b.file}: ${b.language} ${b.check}`), [])
    assert.equal(tsconfigs.length, 1)
  })

  for (const project of projects) {
    it(`type-checks its ${project.kind} code (${project.blocks.length} blocks) with tsc --strict (${compiler})${matrix === undefined ? ', and runs its tests' : ''}`, async () => {
      assert.ok(project.blocks.length > 0, `no ${project.kind} block to check`)
      const home = join(dir, project.type)
      await makeProject(home, tarball, project.type)
      writeFileSync(join(home, 'tsconfig.json'), tsconfigs[0]?.code ?? '')
      // Each block is a file of its own, named by its document and line so errors point there.
      for (const block of project.blocks) writeFileSync(join(home, block.file), block.code)
      // The project's own @types/node, found before the checkout's, as a host's would be.
      if (matrix !== undefined) {
        mkdirSync(join(home, 'node_modules/@types'))
        symlinkSync(join(modules, '@types/node'), join(home, 'node_modules/@types/node'))
      }

      assert.equal(await failure(process.execPath, [tsc, '-p', home, '--strict', '--pretty', 'false'], home), '')
      const tests = project.blocks.filter((b) => b.check === 'run').map((b) => b.file)
      if (tests.length > 0 && matrix === undefined) assert.equal(await failure(process.execPath, ['--import', 'tsx', '--test', ...tests], home), '')
    })
  }
})
