import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { promisify } from 'node:util'

const run = promisify(execFile)

// These import the built package by its own name, as users do (`npm test` builds first). The
// names are held in variables so that type-checking sees src/ alone, not a second copy in dist/.
const main = 'fastify-gpt'
const parser = 'fastify-gpt/parse'
const testing = 'fastify-gpt/testing'
const linter = 'fastify-gpt/lint'
const unroller = 'fastify-gpt/unroll'
const cataloguer = 'fastify-gpt/catalog'

describe('the published package', () => {
  it('exports the plugin as default and as `gpt` from ESM', async () => {
    const module = await import(main)
    assert.equal(typeof module.default, 'function')
    assert.equal(module.gpt, module.default)
    assert.equal(typeof module.GPT_ERR_FORM_INVALID, 'function')
  })

  it('exports the strict parser as fastify-gpt/parse', async () => {
    const { parse } = await import(parser)
    assert.deepEqual(parse(Buffer.from('{"a":[1]}')), { a: [1] })
    assert.throws(() => parse(Buffer.from('{"a":1,"a":2}')))
  })

  it('exports the checker as fastify-gpt/testing, and the command as a bin', async () => {
    const module = await import(testing)
    for (const name of ['checkAddress', 'check', 'formatReport', 'httpSender', 'injectSender']) assert.equal(typeof module[name], 'function', name)
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { bin: Record<string, string> }
    assert.deepEqual(manifest.bin, { 'fastify-gpt': './bin/fastify-gpt.js' })
    assert.match(readFileSync(new URL('../bin/fastify-gpt.js', import.meta.url), 'utf8'), /^#!\/usr\/bin\/env node\n/)
  })

  it('exports the form linter as fastify-gpt/lint, and its command as the fastify-gpt bin', async () => {
    const { lint } = await import(linter)
    assert.ok(lint({ type: 'string' }).some((f: { rule: string }) => f.rule === 'string-unbounded'))
    const bin = new URL('../bin/fastify-gpt.js', import.meta.url).pathname
    const form = new URL('../example/note-board.form.json', import.meta.url).pathname
    const { stdout } = await run(process.execPath, [bin, 'lint', form, '--json'])
    const linted = JSON.parse(stdout) as { findings: unknown, profiles: Array<{ decoder: string, version: string }> }
    assert.ok(Array.isArray(linted.findings))
    assert.match(linted.profiles.find((p) => p.decoder === 'xgrammar')?.version ?? '', /^@mlc-ai\/web-xgrammar 0\.1\.27/)
    await assert.rejects(run(process.execPath, [bin, 'nope']), (error: { code: number, stderr: string }) => error.code === 2 && /usage: fastify-gpt <check \| lint>/.test(error.stderr))
  })

  it('exports unroll as fastify-gpt/unroll', async () => {
    const { unroll } = await import(unroller)
    const form = { type: 'array', items: { $ref: '#' } }
    assert.deepEqual(unroll(form, { depth: 2 }), { type: 'array', items: { $ref: '#/$defs/root2' }, $defs: { root2: { type: 'array', items: false } } })
  })

  it('exports the API catalog as fastify-gpt/catalog, which lists the built package\'s addresses', async () => {
    const [{ default: gpt }, { default: catalog, CATALOG_PATH }, { default: Fastify }] = await Promise.all([import(main), import(cataloguer), import('fastify')])
    const app = Fastify()
    await app.register(catalog)
    await app.register(gpt, { prefix: '/poll', form: { type: 'integer' }, act: (n: number) => n, rateLimit: false, prompt: 'Vote once.' })
    const reply = await app.inject(CATALOG_PATH)
    assert.deepEqual(reply.json().linkset[0], { anchor: '/.well-known/api-catalog', item: [{ href: '/poll', title: 'Vote once.' }] })
    await app.close()
  })

  it('keeps the linter and the checker out of the address\'s core: only the entry wires the linter in, through review.ts', () => {
    const source = (name: string): string => readFileSync(new URL(`../src/${name}.ts`, import.meta.url), 'utf8')
    // The modules a file imports at run time (an `import type` is erased when compiled).
    const runtime = (name: string): string[] => [...source(name).matchAll(/^import\s+(type\s)?[\s\S]*?\sfrom '([^']+)'/gm)]
      .filter((m) => m[1] === undefined).map((m) => m[2] as string)
    const tooling = /^\.\.?\/(lint|cli|check)\/|\/review\.ts$/
    for (const name of ['address/act', 'address/address', 'address/arrival', 'form/compile', 'address/options', 'parse/parse', 'page/html', 'form/bounded', 'form/cycles', 'form/keywords', 'form/pattern/pattern', 'unroll/unroll']) {
      assert.deepEqual(runtime(name).filter((from) => tooling.test(from)), [], name)
    }
    assert.deepEqual(runtime('index').filter((from) => tooling.test(from)), ['./address/review.ts'])
    assert.ok(runtime('address/review').includes('../lint/index.ts'))
  })

  it('runs on the host\'s Fastify: a peer dependency that nothing installed with it brings again', () => {
    const read = (name: string): unknown => JSON.parse(readFileSync(new URL(`../${name}`, import.meta.url), 'utf8'))
    const manifest = read('package.json') as Record<string, Record<string, string> | undefined>
    assert.equal(manifest['dependencies']?.['fastify'], undefined)
    assert.match(manifest['peerDependencies']?.['fastify'] ?? '', /^\^5\.\d+\.\d+$/)
    // The lock marks a package "dev" when no runtime dependency, however deep, requires it.
    const lock = read('package-lock.json') as { packages: Record<string, { dev?: boolean }> }
    assert.equal(lock.packages['node_modules/fastify']?.dev, true)
  })

  it('works from CommonJS through require(esm)', async () => {
    const script = `
      const { gpt, default: plugin } = require('fastify-gpt')
      const { parse } = require('fastify-gpt/parse')
      const app = require('fastify')()
      app.register(gpt, { form: { type: 'integer' }, act: (n) => n + 1, rateLimit: false })
      app.inject({ method: 'POST', url: '/', payload: '41' }).then((r) => {
        process.stdout.write(JSON.stringify([gpt === plugin, parse(Buffer.from('[1]')), r.statusCode, r.body]))
      })`
    const { stdout } = await run(process.execPath, ['--no-warnings', '-e', script])
    assert.deepEqual(JSON.parse(stdout), [true, [1], 200, '42'])
  })

  it('runs no script when installed: nothing for a consumer\'s npm to warn of', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }
    for (const name of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(manifest.scripts[name], undefined, name)
  })

  it('says how to install it', () => {
    assert.match(readFileSync(new URL('../README.md', import.meta.url), 'utf8'), /^npm install fastify-gpt$/m)
  })

  it('ships docs/ so that every link of the README and of the docs, and every image, resolves in the installed package', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: new URL('..', import.meta.url).pathname })
    const packed = new Set((JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]?.files.map((file) => file.path))
    const text = (path: string): string => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8')
    const pages = ['README.md', ...[...packed].filter((path) => path.startsWith('docs/') && path.endsWith('.md'))]
    assert.ok(pages.length > 10, 'the docs are packed')
    let links = 0
    for (const page of pages) {
      const folder = page.includes('/') ? page.slice(0, page.lastIndexOf('/') + 1) : ''
      // Markdown links and images outside code; a scheme (https:) or a bare #anchor stays in the page.
      const prose = text(page).replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '')
      for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (target === undefined || /^[a-z]+:/.test(target)) continue
        const [file = '', anchor] = target.split('#')
        const resolved = file === '' ? page : new URL(file, `file:///${folder}`).pathname.slice(1)
        assert.ok(packed.has(resolved), `${page} links to ${target}, which is not in the package`)
        if (anchor !== undefined) assert.ok(headings(text(resolved)).has(anchor), `${page} links to ${target}: no such heading`)
        links++
      }
    }
    assert.ok(links > 25)
  })
})

/** The anchors of a Markdown page's headings, as GitHub and npm make them. */
function headings (markdown: string): Set<string> {
  const anchors = new Set<string>()
  for (const [, heading] of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)) {
    anchors.add((heading ?? '').trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-'))
  }
  return anchors
}
