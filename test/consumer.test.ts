// The README's code, pasted unchanged into fresh projects that install the packed package: every
// js and ts block is type-checked with `tsc --strict`, as TypeScript (a js block must hold as
// both). Blocks are read from README.md now, never copied here. How a block is checked is said by
// its language and the marker above it (test/helpers/readme.ts): sh and text are shell and output;
// js and ts are checked in an ESM project, or a CommonJS one under `<!-- check: commonjs -->`; the
// json block under `<!-- check: tsconfig -->` is both projects' tsconfig.json. Anything else fails.
// The projects live in a git-ignored folder of this checkout, so that their look-ups of fastify,
// typescript and @types/node climb to its node_modules: no network.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { codeBlocks, type Block } from './helpers/readme.ts'

const run = promisify(execFile)
const root = join(import.meta.dirname, '..')
const tsc = join(root, 'node_modules/typescript/bin/tsc')
const blocks = codeBlocks(readFileSync(join(root, 'README.md'), 'utf8'))

const isShell = (block: Block): boolean => block.language === 'sh' || block.language === 'text'
const isCode = (block: Block): boolean => block.language === 'js' || block.language === 'ts'
const isTsconfig = (block: Block): boolean => block.language === 'json' && block.check === 'tsconfig'

const tsconfigs = blocks.filter(isTsconfig)
const projects = [
  { kind: 'ESM', type: 'module', blocks: blocks.filter((b) => isCode(b) && b.check === '') },
  { kind: 'CommonJS', type: 'commonjs', blocks: blocks.filter((b) => isCode(b) && b.check === 'commonjs') }
]

describe('the README, pasted into fresh projects', { concurrency: true }, () => {
  let dir = ''
  let tarball = ''

  before(async () => {
    assert.ok(existsSync(join(root, 'dist/index.d.ts')), 'dist/ is missing: run `npm run build` first')
    mkdirSync(join(root, '.consumer'), { recursive: true })
    dir = mkdtempSync(join(root, '.consumer', 'run-'))
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root })
    tarball = join(dir, (JSON.parse(stdout) as Array<{ filename: string }>)[0]?.filename ?? '')
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('says how every code block is checked, and has one tsconfig for hosts', () => {
    const unaccounted = blocks.filter((b) => !isShell(b) && !isTsconfig(b) && !(isCode(b) && ['', 'commonjs'].includes(b.check)))
    assert.deepEqual(unaccounted.map((b) => `line ${b.line}: ${b.language} ${b.check}`), [])
    assert.equal(tsconfigs.length, 1)
  })

  for (const project of projects) {
    it(`type-checks its ${project.kind} code (${project.blocks.length} blocks) with tsc --strict`, async () => {
      assert.ok(project.blocks.length > 0, `no ${project.kind} block to check`)
      const home = join(dir, project.type)
      mkdirSync(join(home, 'node_modules'), { recursive: true })
      await run('tar', ['-xzf', tarball, '-C', join(home, 'node_modules')])
      renameSync(join(home, 'node_modules/package'), join(home, 'node_modules/fastify-gpt'))
      writeFileSync(join(home, 'package.json'), JSON.stringify({ private: true, type: project.type }))
      writeFileSync(join(home, 'tsconfig.json'), tsconfigs[0]?.code ?? '')
      // Each block is a file of its own, named by its line in README.md so errors point there.
      for (const block of project.blocks) writeFileSync(join(home, `README-line-${block.line}.ts`), block.code)

      const outcome = await run(process.execPath, [tsc, '-p', home, '--strict', '--pretty', 'false'])
        .then(() => '', (error: { stdout?: string }) => error.stdout ?? String(error))
      assert.equal(outcome, '')
    })
  }
})
