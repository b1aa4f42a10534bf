import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import gpt, { GPT_ERR_OPTION_INVALID, GPT_ERR_OPTION_UNKNOWN } from '../../src/index.ts'
import { OPTIONS } from '../../src/address/options.ts'
import { registrationError } from '../helpers/host.ts'

describe('options are checked at registration, with named errors', () => {
  const invalid: [string, Record<string, unknown>, RegExp][] = [
    ['form missing', { form: undefined }, /"form"/],
    ['form a string', { form: '{"type":"string"}' }, /"form"/],
    ['act missing', { form: {}, act: undefined }, /"act"/],
    ['act not a function', { form: {}, act: 'reply' }, /"act"/],
    ['prompt not a string', { form: {}, prompt: 42 }, /"prompt"/],
    ['messages not an array', { form: {}, messages: 'hi' }, /"messages"/],
    ['message without content', { form: {}, messages: [{ role: 'user' }] }, /"messages"/],
    ['message content not a string', { form: {}, messages: [{ role: 'user', content: 1 }] }, /"messages"/],
    ['message with another member', { form: {}, messages: [{ role: 'user', content: 'a', name: 'x' }] }, /"messages"/],
    ['message null', { form: {}, messages: [null] }, /"messages"/],
    ['type with a newline', { form: {}, type: 'a\r\nx-injected: 1' }, /"type"/],
    ['type empty', { form: {}, type: '' }, /"type"/],
    ['bodyLimit zero', { form: {}, bodyLimit: 0 }, /"bodyLimit"/],
    ['bodyLimit fractional', { form: {}, bodyLimit: 1.5 }, /"bodyLimit"/],
    ['bodyLimit a string', { form: {}, bodyLimit: '1mb' }, /"bodyLimit"/],
    ['bodyTimeout zero', { form: {}, bodyTimeout: 0 }, /"bodyTimeout"/],
    ['bodyTimeout a string', { form: {}, bodyTimeout: '10s' }, /"bodyTimeout"/],
    ['bodyTimeout past what a timer keeps', { form: {}, bodyTimeout: 2 ** 31 }, /"bodyTimeout"/],
    ['actTimeout past what a timer keeps', { form: {}, actTimeout: 2 ** 31 }, /"actTimeout"/],
    ['maxDepth negative', { form: {}, maxDepth: -1 }, /"maxDepth"/],
    ['rateLimit true', { form: {}, rateLimit: true }, /"rateLimit"/],
    ['rateLimit null', { form: {}, rateLimit: null }, /"rateLimit"/],
    ['rateLimit.max a word', { form: {}, rateLimit: { max: 'ten' } }, /"rateLimit.max"/],
    ['rateLimit.max negative', { form: {}, rateLimit: { max: -1 } }, /"rateLimit.max"/],
    ['rateLimit.max fractional', { form: {}, rateLimit: { max: 1.5 } }, /"rateLimit.max"/],
    ['rateLimit.timeWindow a word', { form: {}, rateLimit: { timeWindow: 'a while' } }, /"rateLimit.timeWindow"/],
    ['rateLimit.timeWindow zero', { form: {}, rateLimit: { timeWindow: 0 } }, /"rateLimit.timeWindow"/],
    ['openapi a string', { form: {}, openapi: 'yes' }, /"openapi"/],
    ['html a string', { form: {}, html: '<p>' }, /"html"/],
    ['title empty', { form: {}, title: ' ' }, /"title" must be a string of one line/],
    ['title of two lines', { form: {}, title: 'Notes\nand more' }, /"title"/],
    ['title a number', { form: {}, title: 7 }, /"title"/],
    ['annotations an array', { form: {}, annotations: [] }, /"annotations" must be an object/],
    ['annotations with a title', { form: {}, annotations: { title: 'Notes' } }, /"annotations.title" is not one of MCP's hints.*the option "title"/],
    ['annotations with a hint misspelt', { form: {}, annotations: { readonlyHint: true } }, /"annotations.readonlyHint" is not one of MCP's hints/],
    ['annotations with a hint not a boolean', { form: {}, annotations: { readOnlyHint: 'yes' } }, /"annotations.readOnlyHint" must be a boolean/],
    ['icons an object', { form: {}, icons: { src: 'https://a.example/i.png' } }, /"icons" must be an array/],
    ['an icon a string', { form: {}, icons: ['https://a.example/i.png'] }, /\/icons\/0 must be an object/],
    ['an icon over http', { form: {}, icons: [{ src: 'http://a.example/i.png' }] }, /\/icons\/0\/src must be an https: URL or a data: URI/],
    ['an icon by a relative URL', { form: {}, icons: [{ src: '/i.png' }] }, /\/icons\/0\/src/],
    ['an icon by javascript:', { form: {}, icons: [{ src: 'javascript:alert(1)' }] }, /\/icons\/0\/src/],
    ['an icon as data: not base64', { form: {}, icons: [{ src: 'data:image/svg+xml,<svg/>' }] }, /\/icons\/0\/src/],
    ['an icon without src', { form: {}, icons: [{ mimeType: 'image/png' }] }, /\/icons\/0\/src/],
    ['an icon with another member', { form: {}, icons: [{ src: 'https://a.example/i.png', alt: 'x' }] }, /\/icons\/0\/alt is not a member of an icon/],
    ['an icon with a bad mimeType', { form: {}, icons: [{ src: 'https://a.example/i.png', mimeType: 'png' }] }, /\/icons\/0\/mimeType/],
    ['an icon with sizes a string', { form: {}, icons: [{ src: 'https://a.example/i.png', sizes: '48x48' }] }, /\/icons\/0\/sizes must be an array/],
    ['an icon with a bad size', { form: {}, icons: [{ src: 'https://a.example/i.png' }, { src: 'https://a.example/j.png', sizes: ['any', '48 x 48'] }] }, /\/icons\/1\/sizes\/1 must be a size/],
    ['an icon with a bad theme', { form: {}, icons: [{ src: 'https://a.example/i.png', theme: 'dim' }] }, /\/icons\/0\/theme/]
  ]
  for (const [name, options, detail] of invalid) {
    it(`refuses ${name}`, async () => {
      const error = await registrationError(options, '/notes')
      assert.ok(error instanceof GPT_ERR_OPTION_INVALID, String(error))
      assert.equal(error.code, 'GPT_ERR_OPTION_INVALID')
      assert.match(error.message, /address \/notes:/)
      assert.match(error.message, detail)
    })
  }

  it('refuses an unknown option, naming it', async () => {
    const error = await registrationError({ form: {}, from: {} }, '/notes')
    assert.ok(error instanceof GPT_ERR_OPTION_UNKNOWN)
    assert.match(error.message, /address \/notes: unknown option "from"/)
  })

  it('accepts every documented option', async () => {
    const error = await registrationError({
      form: { type: 'string' },
      prompt: 'p',
      messages: [{ role: 'user', content: 'c' }],
      type: 'note board',
      bodyLimit: 1024,
      bodyTimeout: 2 ** 31 - 1,
      actTimeout: 2 ** 31 - 1,
      maxDepth: 8,
      rateLimit: { max: 5, timeWindow: '1 minute' },
      html: false,
      title: 'Notes',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      icons: [
        { src: 'https://a.example/icon.png', mimeType: 'image/png', sizes: ['48x48', '96x96'], theme: 'light' },
        { src: 'data:image/svg+xml;base64,PHN2Zy8+', sizes: ['any'] }
      ],
      logLevel: 'warn'
    })
    assert.equal(error, undefined)
  })

  it('keeps the host alive when registration fails: only ready() rejects', async () => {
    const app = Fastify()
    app.get('/up', async () => 'up')
    app.register(gpt, { form: { type: 'nope' }, act: () => 1 })
    await assert.rejects(async () => { await app.ready() }, { code: 'GPT_ERR_FORM_INVALID' })
  })
})

describe('every option is checked before anything connects', () => {
  it('a bad background or idempotency with share fails registration before Redis is asked anything', async () => {
    for (const bad of [{ background: { after: 0 } }, { background: 'soon' }, { idempotency: { keep: -1 } }, { idempotency: 'yes' }]) {
      const asked: string[] = []
      // an ioredis client as far as the option's check looks, that records whatever is asked of it
      const redis = new Proxy({}, { get: (_target, name) => typeof name === 'string' ? () => { asked.push(name); return redis } : undefined })
      const app = Fastify()
      app.register(gpt, { form: { type: 'object' }, act: () => null, rateLimit: false, share: { redis }, ...bad } as never)
      await assert.rejects(async () => { await app.ready() }, (error: Error & { code?: string }) => error.code === 'GPT_ERR_OPTION_INVALID', JSON.stringify(bad))
      assert.deepEqual(asked, [], `nothing asked of Redis: ${JSON.stringify(bad)}`)
    }
  })
})

describe('the options table', () => {
  /** The README's options table: each option's type and default cells, by name. */
  function readmeRows (): Map<string, { type: string, shown: string }> {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    const section = readme.split(/^## /m).find((part) => part.startsWith('Options\n'))
    assert.ok(section !== undefined, 'the README has a section "Options"')
    const rows = new Map<string, { type: string, shown: string }>()
    for (const line of section.split('\n')) {
      const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim())
      const name = /^`(\w+)`$/.exec(cells[0] ?? '')?.[1]
      if (name !== undefined) rows.set(name, { type: cells[1]!, shown: cells[2]! })
    }
    return rows
  }

  it('names every option the plugin takes, and only those (and Fastify\'s prefix)', () => {
    assert.deepEqual([...readmeRows().keys()].sort(), [...Object.keys(OPTIONS), 'prefix'].sort())
  })

  for (const [name, row] of Object.entries(OPTIONS)) {
    it(`shows ${name}'s type and default as the plugin has them`, () => {
      assert.deepEqual(readmeRows().get(name), { type: row.type, shown: row.shown })
    })
  }

  it('a default shown is the default taken', () => {
    // As the table writes values: '' strings, { name: value } objects.
    const written = (value: unknown): string => typeof value === 'object' && value !== null
      ? `{ ${Object.entries(value).map(([name, member]) => `${name}: ${written(member)}`).join(', ')} }`
      : typeof value === 'string' ? `'${value}'` : String(value)
    const defaulted = Object.entries(OPTIONS).filter(([, row]) => 'value' in row)
    assert.ok(defaulted.length >= 8)
    for (const [name, row] of defaulted) {
      assert.equal(row.shown.replace(/^`([^`]*)`.*$/, '$1'), written((row as { value: unknown }).value), name)
    }
  })
})
