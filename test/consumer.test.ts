// The documentation's code, pasted unchanged into fresh projects that install the packed package:
// every js and ts block of README.md and docs/*.md is type-checked with `tsc --strict` and without
// skipLibCheck, as TypeScript (a js block must hold as both), and the test examples are run.
// Blocks are read from the documents now, never copied here. How a block is checked is said by its
// language and the marker above it (test/helpers/code-blocks.ts): sh and text are shell and
// output; js and ts are checked in an ESM project, or in a CommonJS one under
// `<!-- check: commonjs -->`, and also run with `node --test` under `<!-- check: run -->`; a block
// under `<!-- check: fragment -->` cannot compile alone and is not compiled (rare: say why); the
// README's json block under `<!-- check: tsconfig -->` is every project's tsconfig.json.
// Anything else fails. The projects live in a git-ignored folder of this checkout, so that their
// look-ups of fastify, typescript, tsx and @types/node climb to its node_modules: no network.
// With CONSUMER_TYPES naming a folder that npm installed a TypeScript and an @types/node into
// (`npm install --prefix <folder> typescript@5.8 @types/node@20`), the code is type-checked with
// those instead, and not run (what runs does not depend on them): CI's matrix (.ci/run).
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { codeBlocks, type Block } from './helpers/code-blocks.ts'

const run = promisify(execFile)
const root = join(import.meta.dirname, '..')
const matrix = process.env['CONSUMER_TYPES']
const modules = join(matrix ?? root, 'node_modules')
// TypeScript 7's `typescript` starts its native compiler from bin/tsc as 5.x did; the preview's is tsgo.
const typescript = ['typescript', '@typescript/native-preview'].find((name) => existsSync(join(modules, name))) ?? 'typescript'
const tsc = join(modules, typescript, typescript === 'typescript' ? 'bin/tsc' : 'bin/tsgo')
const versionOf = (name: string): string =>
  (JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')) as { version: string }).version
const compiler = `${typescript} ${versionOf(typescript)}, @types/node ${versionOf('@types/node')}`

interface Located extends Block { readonly file: string }
const DOCUMENTS = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)]
const blocks: Located[] = DOCUMENTS.flatMap((document) =>
  codeBlocks(readFileSync(join(root, document), 'utf8'))
    .map((block) => ({ ...block, file: `${document.replace(/\W/g, '-')}-line-${block.line}.ts` })))

const isShell = (block: Block): boolean => block.language === 'sh' || block.language === 'text'
const isCode = (block: Block): boolean => block.language === 'js' || block.language === 'ts'
const isTsconfig = (block: Block): boolean => block.language === 'json' && block.check === 'tsconfig'

const tsconfigs = blocks.filter(isTsconfig)
const projects = [
  { kind: 'ESM', type: 'module', blocks: blocks.filter((b) => isCode(b) && (b.check === '' || b.check === 'run')) },
  { kind: 'CommonJS', type: 'commonjs', blocks: blocks.filter((b) => isCode(b) && b.check === 'commonjs') }
]

// Without this, a `node --test` started from a test reports to ours instead, and exits 0 anyway.
const { NODE_TEST_CONTEXT, ...env } = process.env

/** Runs a command; resolves to its output when it fails, to '' when it succeeds. */
const failure = (file: string, args: string[], cwd: string): Promise<string> =>
  run(file, args, { cwd, env }).then(() => '', (error: { stdout?: string, stderr?: string }) =>
    `${error.stdout ?? ''}${error.stderr ?? ''}` || String(error))

describe('the documentation, pasted into fresh projects', { concurrency: true }, () => {
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
    const accounted = (b: Block): boolean => isShell(b) || isTsconfig(b) || (isCode(b) && ['', 'commonjs', 'run', 'fragment'].includes(b.check))
    assert.deepEqual(blocks.filter((b) => !accounted(b)).map((b) => `${b.file}: ${b.language} ${b.check}`), [])
    assert.equal(tsconfigs.length, 1)
  })

  for (const project of projects) {
    it(`type-checks its ${project.kind} code (${project.blocks.length} blocks) with tsc --strict (${compiler})${matrix === undefined ? ', and runs its tests' : ''}`, async () => {
      assert.ok(project.blocks.length > 0, `no ${project.kind} block to check`)
      const home = join(dir, project.type)
      mkdirSync(join(home, 'node_modules'), { recursive: true })
      await run('tar', ['-xzf', tarball, '-C', join(home, 'node_modules')])
      renameSync(join(home, 'node_modules/package'), join(home, 'node_modules/fastify-gpt'))
      writeFileSync(join(home, 'package.json'), JSON.stringify({ private: true, type: project.type }))
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
