import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import { Script } from 'node:vm'
import Fastify from 'fastify'
import gpt, { type GptOptions } from '../../src/index.ts'
import { renderPage } from '../../src/page/html.ts'
import { PROFILES } from '../../src/lint/decoders.ts'
import { DECODERS, lint, runtimeVerdicts } from '../../src/lint/index.ts'
import { MAX_NODES, MAX_REPEAT } from '../../src/page/inputs.ts'
import { SCRIPT } from '../../src/page/script.ts'
import { html, lines, markup } from '../../src/page/escape.ts'
import fc from 'fast-check'
import type { JsonObject } from '../../src/form/compile.ts'
import { plan } from '../fixtures/plan.ts'

/** The page an address serves to a browser, with its headers. */
async function page (options: Partial<GptOptions> & { form: object }): Promise<{ body: string, csp: string, type: string }> {
  const app = Fastify()
  await app.register(gpt, { act: () => null, rateLimit: false, ...options } as GptOptions)
  const response = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })
  await app.close()
  assert.equal(response.statusCode, 200)
  return {
    body: response.body,
    csp: String(response.headers['content-security-policy']),
    type: String(response.headers['content-type'])
  }
}

const view = (form: object, more: Partial<{ prompt: string, messages: { role: string, content: string }[], path: string }> = {}) =>
  renderPage({ path: '/', prompt: '', messages: [], form: form as JsonObject, ...more })

const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64')
const all = (html: string, pattern: RegExp): RegExpExecArray[] => [...html.matchAll(new RegExp(pattern, 'gi'))]

/** Every input, select and textarea, with the attributes of its start tag. */
function controls (html: string): { tag: string, attributes: string, at: number }[] {
  return all(html, /<(input|select|textarea)\b([^>]*)>/).map((m) => ({ tag: m[1] as string, attributes: m[2] as string, at: m.index }))
}
/**
 * The name of every attribute of every start tag outside the script and the style. Each tag must
 * parse as name="value" pairs with quoted, escaped values: injected markup cannot.
 */
function attributeNames (html: string): string[] {
  const markup = html.replace(/<script>[\s\S]*?<\/script>/g, '').replace(/<style>[\s\S]*?<\/style>/g, '')
  const tag = /^<([a-z][a-z0-9]*)((?:\s+[a-z][a-z-]*(?:="[^"<>]*")?)*)\s*>/
  const names: string[] = []
  for (const at of all(markup, /<[a-z]/)) {
    const match = tag.exec(markup.slice(at.index))
    assert.ok(match, `a well-formed tag at ${markup.slice(at.index, at.index + 80)}`)
    names.push(...all(match[2] as string, /\s+([a-z][a-z-]*)(?:="[^"<>]*")?/).map((m) => m[1] as string))
  }
  return names
}

/** The markup of one member of a flat object, up to the next member. */
function memberOf (html: string, name: string): string {
  const at = html.indexOf(`data-name="${name}"`)
  const next = html.indexOf('data-name=', at + 1)
  return html.slice(at, next === -1 ? undefined : next)
}

const attribute = (attributes: string, name: string): string | undefined => new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1]

// A form with every kind of input; its tail is the browser tests' too (test/fixtures/plan.ts).
// Typed loosely (object): inferring act's body type from a form this size costs the type checker more than it tells.
const nested: object = {
  type: 'object',
  description: 'Plan a small project.',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 60, description: 'A short title.' },
    summary: { type: 'string', maxLength: 2000 },
    count: { type: 'integer', minimum: 1, maximum: 10 },
    ratio: { type: 'number', exclusiveMinimum: 0 },
    urgent: { type: 'boolean' },
    color: { enum: ['red', 'green', 'blue'] },
    size: { enum: [1, 2, 3, 4, 5, 6, 7, 8] },
    kind: { const: 'plan' },
    ...plan.properties,
    extra: {}
  },
  ...plan.rest
}

describe('the page (draft §3.3)', () => {
  it('is served to a browser as HTML with a CSP and nosniff', async () => {
    const app = Fastify()
    await app.register(gpt, { form: nested, act: () => null, rateLimit: false })
    const response = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    assert.equal(response.headers['x-content-type-options'], 'nosniff')
    assert.equal(response.headers['content-security-policy'], view(nested).csp)
    assert.match(response.body, /^<!doctype html>\n<html lang="en">/)
    await app.close()
  })

  it('shows p as the introduction and m as a conversation, in order, with roles', async () => {
    const { body } = await page({
      form: nested,
      prompt: 'Plan a project.\nKeep it short.',
      messages: [{ role: 'user', content: 'first question' }, { role: 'assistant', content: 'first answer' }, { role: 'critic', content: 'a remark' }]
    })
    assert.match(body, /<p class="prompt">Plan a project.\nKeep it short.<\/p>/)
    assert.match(body, /<title>Plan a project. · \/<\/title>/)
    const messages = all(body, /<li class="message([^"]*)"><span class="role">([^<]*)<\/span><div class="content">([^<]*)<\/div><\/li>/)
    assert.deepEqual(messages.map((m) => [m[1], m[2], m[3]]),
      [[' user', 'user', 'first question'], [' assistant', 'assistant', 'first answer'], ['', 'critic', 'a remark']])
  })

  it('titles the page by the address\'s title, else by its prompt\'s first sentence, else by its path', async () => {
    assert.match((await page({ form: nested, prompt: 'Plan a project. Keep it short.', title: 'Planner <beta>' })).body, /<title>Planner &lt;beta&gt; · \/<\/title>/)
    assert.match((await page({ form: nested, prompt: '\n  Plan a project! Keep it short.' })).body, /<title>Plan a project! · \/<\/title>/)
    assert.match((await page({ form: nested })).body, /<title>GPT address \/<\/title>/)
    assert.match(renderPage({ path: '/x', title: 'Declared', prompt: 'Not this.', messages: [], form: {} }).html, /<title>Declared · \/x<\/title>/)
  })

  it('leaves out the conversation when m is empty, and says when p is', async () => {
    const { body } = await page({ form: nested })
    assert.doesNotMatch(body, /class="messages"/)
    assert.match(body, /<p class="prompt empty">/)
  })

  it('shows the published form itself, pretty-printed', async () => {
    const { body } = await page({ form: nested })
    const shown = /<pre class="schema"><code>([^<]*)<\/code><\/pre>/.exec(body)?.[1]
    assert.ok(shown !== undefined)
    const text = shown.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
    assert.equal(text, JSON.stringify(nested, null, 2))
  })

  it('shows which runtimes can act: refused, loosened or exact per decoder profile, as lint found', async () => {
    // openai-strict refuses an optional member; anthropic loosens minimum and maximum; XGrammar enforces it all.
    const form = { type: 'object', properties: { a: { type: 'integer', minimum: 0, maximum: 5 } }, additionalProperties: false }
    const rows = (body: string): string[][] => all(body, /<tr><th scope="row"><code>([^<]*)<\/code><\/th><td>([^<]*)<\/td><td class="verdict ([a-z]+)" title="[^"]*">([a-z]+)<\/td><\/tr>/)
      .map((m) => [m[1] as string, m[3] as string, m[4] as string])
    const { body } = await page({ form })
    assert.match(body, /<h2 id="runtimes-title">Who can act here<\/h2>/)
    const shown = rows(body)
    assert.deepEqual(shown.map(([decoder]) => decoder), [...DECODERS].sort((a, b) => PROFILES.findIndex((p) => p.name === a) - PROFILES.findIndex((p) => p.name === b)))
    assert.deepEqual(shown, runtimeVerdicts(lint(form)).map((v) => [v.decoder, v.verdict, v.verdict]))
    const verdict = Object.fromEntries(shown.map(([decoder, verdict]) => [decoder, verdict]))
    assert.deepEqual([verdict['openai-strict'], verdict['anthropic'], verdict['xgrammar']], ['refused', 'loosened', 'exact'])
    assert.doesNotMatch((await page({ form, lint: false })).body, /runtimes-title/)
    assert.doesNotMatch(view(form).html, /runtimes-title/)
  })

  it('escapes what it is given for the table of runtimes', () => {
    const { html } = renderPage({ path: '/', prompt: '', messages: [], form: {} }, [{ decoder: '<x>', runtimes: 'a & b', verdict: 'exact' }])
    assert.match(html, /<code>&lt;x&gt;<\/code><\/th><td>a &amp; b<\/td>/)
  })
})

describe('escaping', () => {
  const evil = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">\'"&'
  const escaped = '&lt;script&gt;window.pwned=1&lt;/script&gt;&lt;img src=x onerror=&quot;window.pwned=2&quot;&gt;&#39;&quot;&amp;'

  it('escapes every piece of p, m and s, and runs only its own script', async () => {
    const { body } = await page({
      prompt: evil,
      messages: [{ role: evil, content: evil }],
      form: {
        type: 'object',
        title: evil,
        description: evil,
        properties: {
          [evil]: { type: 'string', description: evil, title: evil, default: evil, examples: [evil], maxLength: 10 },
          choice: { enum: [evil, 1], description: evil },
          many: { enum: [evil, 2, 3, 4, 5, 6, 7], default: evil },
          fixed: { const: evil },
          either: { anyOf: [{ title: evil, type: 'string' }, { type: 'object', properties: { [evil]: { type: 'integer' } } }] },
          list: { type: 'array', items: { $ref: `#/$defs/${encodeURIComponent(evil).replace(/'/g, '%27')}` } }
        },
        $defs: { [evil]: { type: 'boolean', description: evil } }
      }
    })
    assert.equal(all(body, /<script/).length, 1, 'one script element: the page\'s own')
    assert.equal(all(body, /<img/).length, 0)
    assert.deepEqual(attributeNames(body).filter((name) => name.startsWith('on') || name === 'style' || name === 'src'), [])
    assert.doesNotMatch(body, /window\.pwned=1<\/script>/)
    assert.ok(all(body, new RegExp(escaped.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).length >= 10, 'shown as text, wherever it was')
  })

  it('escapes the path', () => {
    const { html } = view({ type: 'string' }, { path: '/a"<b>' })
    assert.match(html, /<code>\/a&quot;&lt;b&gt;<\/code>/)
    assert.doesNotMatch(html, /<b>/)
  })

  it('by construction: html escapes every text it is given, keeps markup it made, writes lists in order and nothing for undefined', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => {
      const written = html`<p title="${text}">${text}</p>`.toString()
      const inner = written.slice('<p title="'.length, written.indexOf('"', '<p title="'.length))
      assert.doesNotMatch(inner, /[<>"']/)
      assert.equal(inner.replace(/&(lt|gt|quot|#39|amp);/g, (_, name: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[name] as string), text)
    }), { seed: 20261208 })
    assert.equal(html`<i>${html`<b>${evil}</b>`}</i>`.toString(), `<i><b>${escaped}</b></i>`)
    assert.equal(html`${[html`<a>`, '<', 2, undefined]}|${lines([markup('<x>'), markup('<y>')])}`.toString(), '<a>&lt;2|<x>\n<y>')
  })

  it('gives a message role a look only from a fixed list', async () => {
    const { body } = await page({ form: nested, messages: [{ role: 'user" onclick="x', content: 'hi' }] })
    assert.match(body, /<li class="message"><span class="role">user&quot; onclick=&quot;x<\/span>/)
  })
})

describe('Content-Security-Policy', () => {
  it('admits exactly the inline script and the inline style, by hash, and nothing else', async () => {
    const { body, csp } = await page({ form: nested, messages: [{ role: 'user', content: 'hi' }] })
    const scripts = all(body, /<script>([\s\S]*?)<\/script>/)
    const styles = all(body, /<style>([\s\S]*?)<\/style>/)
    assert.equal(scripts.length, 1)
    assert.equal(styles.length, 1)
    assert.equal(all(body, /<script/).length, 1)
    assert.equal(all(body, /<style/).length, 1)
    const directives = new Map(csp.split(/;\s*/).map((d) => {
      const [name = '', ...values] = d.trim().split(/\s+/)
      return [name, values.join(' ')]
    }))
    assert.equal(directives.get('default-src'), "'none'")
    assert.equal(directives.get('script-src'), `'sha256-${sha256(scripts[0]?.[1] as string)}'`)
    assert.equal(directives.get('style-src'), `'sha256-${sha256(styles[0]?.[1] as string)}'`)
    assert.equal(directives.get('connect-src'), "'self'")
    assert.equal(directives.get('base-uri'), "'none'")
    assert.equal(directives.get('form-action'), "'none'")
    assert.equal(directives.get('frame-ancestors'), "'none'")
    assert.equal(directives.get('require-trusted-types-for'), "'script'")
    assert.doesNotMatch(csp, /unsafe|\*|https?:|data:/)
  })

  it('needs no inline style or handler attribute, which the policy would block', async () => {
    const { body } = await page({ form: nested })
    const names = attributeNames(body)
    assert.ok(names.length > 100)
    assert.deepEqual(names.filter((name) => name === 'style' || name.startsWith('on')), [])
    assert.doesNotMatch(body, /javascript:/i)
  })

  it('is the same for every address: the script and style are constants', () => {
    assert.equal(view({ type: 'string' }).csp, view(nested, { prompt: 'x' }).csp)
  })

  it('hashes a script that compiles', () => {
    assert.doesNotThrow(() => new Script(SCRIPT))
  })
})

describe('no external assets', () => {
  it('loads nothing: no src, href, url() or @import', async () => {
    const { body } = await page({ form: nested, prompt: 'See https://example.com' })
    assert.deepEqual(attributeNames(body).filter((name) => ['src', 'href', 'srcset', 'action', 'formaction', 'poster', 'data'].includes(name)), [])
    assert.doesNotMatch(body, /url\(|@import|<link|<iframe|<object|<embed|<img/i)
    const outsideText = body.replace(/<p class="prompt">[^<]*<\/p>/, '').replace(/<title>[^<]*<\/title>/, '')
    assert.doesNotMatch(outsideText, /https?:\/\//)
  })
})

describe('inputs generated from s', () => {
  it('gives every input a label, and unique ids', async () => {
    const { body } = await page({ form: nested })
    const ids = all(body, /\sid="([^"]+)"/).map((m) => m[1])
    assert.equal(new Set(ids).size, ids.length, 'ids are unique')
    const list = controls(body)
    assert.ok(list.length >= 20)
    for (const control of list) {
      const id = attribute(control.attributes, 'id')
      const labelled = (id !== undefined && body.includes(`<label class="label" for="${id}">`)) ||
        (id !== undefined && body.includes(`<label for="${id}">`)) ||
        (id !== undefined && body.includes(`<label class="body-label" for="${id}">`)) ||
        attribute(control.attributes, 'aria-label') !== undefined ||
        /<label class="choice">$/.test(body.slice(0, control.at))
      assert.ok(labelled, `<${control.tag}${control.attributes}> has a label`)
    }
  })

  it('names each property in its label', async () => {
    const { body } = await page({ form: nested })
    for (const name of ['title', 'summary', 'count', 'ratio', 'urgent', 'size', 'what', 'done', 'phone']) {
      assert.match(body, new RegExp(`<label class="label" for="v\\d+"><span class="name">${name}</span>`), name)
    }
    for (const name of ['color', 'tasks', 'contact', 'tree', 'kids']) {
      assert.match(body, new RegExp(`<legend class="head"><span class="label"><span class="name">${name}</span>`), name)
    }
    assert.match(body, /<span class="name">item <span class="index">1<\/span><\/span>/)
  })

  it('maps each keyword to its input', async () => {
    const { body } = await page({ form: nested })
    const node = (kind: string): number => all(body, new RegExp(`data-kind="${kind}"`)).length
    assert.match(body, /<input type="text" id="v\d+" class="value" maxlength="60" minlength="1" aria-describedby="v\d+" value="">/)
    assert.match(body, /<textarea id="v\d+" class="value" maxlength="2000" rows="6">/, 'a long text gets a text area')
    assert.match(body, /<input type="number" id="v\d+" class="value" step="1" inputmode="numeric" min="1" max="10">/)
    assert.match(body, /<input type="number" id="v\d+" class="value" step="any" inputmode="decimal">/)
    assert.match(body, /<span class="hint">number · &gt; 0<\/span>/)
    assert.match(body, /<input type="checkbox" id="v\d+" class="value">/)
    assert.match(body, /<input type="radio" class="value" name="v\d+" value="&quot;green&quot;">/)
    assert.match(body, /<select id="v\d+" class="value"><option value="">choose…<\/option><option value="1">1<\/option>/)
    assert.match(body, /data-kind="const" data-value="&quot;plan&quot;"/)
    assert.match(body, /<fieldset class="node" data-kind="array" data-min="1" data-max="3">/)
    assert.match(body, /<select id="v\d+" class="pick"><option value="0">email<\/option><option value="1">object \(phone\)<\/option><\/select>/)
    assert.match(body, /<p class="help" id="(v\d+)">A short title.<\/p>/)
    assert.match(body, /<div class="field omitted" data-name="extra" data-optional><div class="node" data-kind="json">/)
    assert.equal(node('anyOf'), 3, 'contact, and tree unrolled n1 -> n2 (n3 is a leaf)')
    assert.equal(node('json'), 1, 'only "extra", which admits any JSON')
  })

  it('ties the description to its input as help text', async () => {
    const { body } = await page({ form: nested })
    const help = /<p class="help" id="(v\d+)">A short title.<\/p>/.exec(body)?.[1]
    assert.match(body, new RegExp(`<input type="text" [^>]*aria-describedby="${help}"`))
  })

  it('marks optional members with an include switch, required ones without', async () => {
    const { body } = await page({ form: nested })
    const optional = all(body, /<div class="field omitted" data-name="([^"]+)" data-optional>/).map((m) => m[1])
    assert.deepEqual(optional, ['summary', 'ratio', 'size', 'tree', 'extra'])
    assert.equal(all(body, /class="include" aria-label="include /).length, optional.length)
    assert.match(body, /<div class="field" data-name="title">/)
  })

  it('unrolls $defs n1 -> n2 -> n3 as nested inputs', () => {
    const { html } = view(nested)
    // tree: anyOf [leaf, object { kids: [n2] }] -> n2: anyOf [leaf, object { kids: [n3] }] -> n3: leaf
    assert.match(html, /<option value="0">leaf<\/option><option value="1">branch1<\/option>/)
    assert.match(html, /<option value="0">leaf<\/option><option value="1">branch2<\/option>/)
    assert.equal(all(html, /<template>/).length, 3, 'tasks, and the kids of each level')
  })

  it('stops an unbounded self-reference at a depth, and falls back to JSON there', () => {
    const form = {
      $defs: { node: { type: 'object', properties: { content: { type: 'array', items: { $ref: '#/$defs/node' } } }, additionalProperties: false } },
      $ref: '#/$defs/node'
    }
    const { html } = view(form)
    assert.equal(all(html, /data-kind="json"/).length, 1)
    assert.match(html, /JSON · it repeats itself from here on/)
    assert.equal(all(html, /<template>/).length, MAX_REPEAT, '#/$defs/node opens MAX_REPEAT times on one path, then JSON')
  })

  it('stops a self-reference through "#" too', () => {
    const { html } = view({ type: 'object', properties: { next: { $ref: '#' }, name: { type: 'string', maxLength: 5 } } })
    assert.match(html, /it repeats itself from here on/)
  })

  it('shows allOf as one schema, and stops an allOf that refers to itself', () => {
    const { html } = view({
      $defs: { named: { type: 'object', properties: { name: { type: 'string', maxLength: 9 } }, required: ['name'] } },
      allOf: [{ $ref: '#/$defs/named' }, { properties: { age: { type: 'integer' } } }]
    })
    assert.match(html, /data-name="name"[^]*data-name="age" data-optional/)
    assert.match(view({ allOf: [{ $ref: '#' }], type: 'string' }).html, /data-kind="string"/)
  })

  it('bounds a form that branches at every level', () => {
    const form = {
      $defs: { tree: { anyOf: [{ type: 'null' }, { type: 'object', properties: { left: { $ref: '#/$defs/tree' }, right: { $ref: '#/$defs/tree' } } }] } },
      $ref: '#/$defs/tree'
    }
    const { html } = view(form)
    assert.ok(all(html, /class="node"/).length <= MAX_NODES + 1)
    assert.ok(html.length < 1_000_000)
  })

  it('follows a $ref to an $anchor of the form, but not into another resource', () => {
    const { html } = view({
      type: 'object',
      properties: { choice: { $ref: '#choice' }, other: { $ref: '#inner' }, fake: { $ref: '#data' } },
      $defs: {
        choice: { $anchor: 'choice', enum: ['tabs', 'spaces'] },
        nested: { $id: 'https://example.com/nested', $defs: { inner: { $anchor: 'inner', type: 'string' } } },
        holder: { const: { $anchor: 'data', type: 'string' } }
      }
    })
    const member = (name: string): string => memberOf(html, name)
    assert.match(member('choice'), /data-kind="enum"[^]*?tabs[^]*?spaces/)
    assert.match(member('other'), /JSON · its \$ref is not shown as inputs/)
    assert.match(member('fake'), /JSON · its \$ref is not shown as inputs/)
  })

  it('falls back to JSON for what inputs cannot express', () => {
    const { html } = view({
      type: 'object',
      properties: {
        tuple: { type: 'array', prefixItems: [{ type: 'string' }] },
        map: { type: 'object', additionalProperties: { type: 'integer' } },
        anything: true,
        remote: { $ref: 'https://example.com/other.json' }
      }
    })
    assert.match(html, /data-name="tuple"[^]*?JSON · a tuple/)
    assert.match(html, /data-name="map"[^]*?JSON · members of any name/)
    assert.match(html, /data-name="anything"[^]*?JSON · any JSON value/)
    assert.match(html, /data-name="remote"[^]*?JSON · its \$ref is not shown as inputs/)
  })

  it('offers a choice of type for a type list, and of alternative for oneOf', () => {
    const { html } = view({
      type: 'object',
      properties: {
        maybe: { type: ['string', 'null'], maxLength: 5 },
        shape: { oneOf: [{ properties: { kind: { const: 'circle' }, r: { type: 'number' } } }, { properties: { kind: { const: 'square' } } }] }
      }
    })
    assert.match(html, /<option value="0">text<\/option><option value="1">null<\/option>/)
    assert.match(html, /<option value="0">kind: circle<\/option><option value="1">kind: square<\/option>/)
  })

  it('lays the keywords beside anyOf over each alternative', () => {
    const { html } = view({
      type: 'object',
      properties: { a: { type: 'string', maxLength: 3 }, b: { type: 'string', maxLength: 3 } },
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
      additionalProperties: false
    })
    assert.match(html, /<option value="0">option 1<\/option><option value="1">option 2<\/option>/)
    assert.match(html, /<div class="field" data-name="a">[^]*<div class="field omitted" data-name="a" data-optional>/)
  })

  it('shows a scalar form, an enum form and an empty object form', () => {
    assert.match(view({ type: 'string', maxLength: 5 }).html, /<div class="node" data-kind="string" data-max-length="5"><div class="head"><label class="label" for="v1"><span class="name">body<\/span>/)
    assert.match(view({ enum: ['tabs', 'spaces'] }).html, /<legend class="head"><span class="label"><span class="name">body<\/span>/)
    assert.match(view({ type: 'object', additionalProperties: false }).html, /No members: the value is <code>\{\}<\/code>/)
  })

  it('prefills a default and an example', () => {
    const { html } = view({
      type: 'object',
      properties: { n: { type: 'integer', default: 3 }, s: { type: 'string', maxLength: 9, examples: ['e.g.'] }, on: { type: 'boolean', default: true }, off: { type: 'boolean', default: true } },
      required: ['on']
    })
    assert.match(html, /step="1" inputmode="numeric" value="3">/)
    assert.match(html, /placeholder="e.g."/)
    assert.match(html, /<input type="checkbox" id="v\d+" class="value" checked>/)
    // an optional one starts left out, as every optional member does: its default is a hint
    assert.match(html, /data-name="off" data-optional>[^]*<span class="hint">default true<\/span>[^]*value="" checked> left out/)
  })

  it('offers an optional boolean as one choice of three, never as two checkboxes', () => {
    const { html } = view({
      type: 'object',
      properties: { pinned: { type: 'boolean' }, urgent: { type: 'boolean' }, note: { type: 'string', maxLength: 9 } },
      required: ['urgent']
    })
    const member = (name: string): string => memberOf(html, name)
    const pinned = member('pinned')
    assert.deepEqual(all(pinned, /<input ([^>]*)>/).map((m) => m[1]?.replace(/v\d+/, 'v')),
      ['type="radio" class="value" name="v" value="" checked', 'type="radio" class="value" name="v" value="true"',
        'type="radio" class="value" name="v" value="false"'])
    assert.deepEqual(all(pinned, /<label class="choice[^"]*">[^<]*<input[^>]*> ([^<]+)<\/label>/).map((m) => m[1]), ['left out', 'true', 'false'])
    assert.doesNotMatch(pinned, /checkbox/)
    assert.match(member('urgent'), /<input type="checkbox" id="v\d+" class="value">/, 'a required boolean is a checkbox')
    assert.doesNotMatch(member('urgent'), /class="include"/)
    assert.match(member('note'), /class="include" aria-label="include note"/)
    const lead = (form: object): string => /<p class="lead">Fill in[^]*?<\/p>/.exec(view(form).html)?.[0] ?? ''
    assert.match(lead({ type: 'object', properties: { a: { type: 'string' } } }), /switch on its <em>include<\/em>\.<\/p>$/)
    assert.match(lead({ type: 'object', properties: { a: { type: 'boolean' } } }), /answer\.\nA true-or-false member that may be left out starts <em>left out<\/em>: choose <em>true<\/em> or <em>false<\/em> to send it\.<\/p>$/)
    assert.match(lead({ type: 'object', properties: { a: { type: 'boolean' } }, required: ['a'] }), /answer\.<\/p>$/)
  })

  it('gives a string a one-line input where its format or pattern keeps it on one line, of a type the browser knows', () => {
    const control = (schema: object): string => /<(input|textarea)\b[^>]*>/.exec(view({ type: 'string', ...schema }).html.split('<div class="inputs">')[1] ?? '')?.[0] ?? ''
    assert.match(control({ format: 'email' }), /^<input type="text" inputmode="email" /, 'the text as typed, with the email keyboard')
    assert.match(control({ format: 'uri' }), /^<input type="url" /)
    assert.match(control({ format: 'iri' }), /^<input type="url" /)
    assert.match(control({ format: 'date' }), /^<input type="date" /)
    // no input type whose value is written as the format writes it: a plain one-line input
    for (const format of ['uuid', 'ipv4', 'date-time', 'time', 'uri-reference', 'duration']) assert.match(control({ format }), /^<input type="text" /, format)
    assert.match(control({ pattern: '^[A-Z]{3}-\\d{4}$' }), /^<input type="text" /)
    assert.match(control({ pattern: '^[A-Z]{3}-\\d{4}$', maxLength: 5000 }), /^<input type="text" /)
    for (const pattern of ['[A-Z]{3}', '^[^<>]*$', '^\\s*$', '^a|b$']) assert.match(control({ pattern }), /^<textarea /, pattern)
    assert.match(control({}), /^<textarea /)
    assert.match(control({ maxLength: 100 }), /^<input type="text" /)
    assert.match(control({ maxLength: 101 }), /^<textarea /)
  })

  it('shows a time and a date-time as the format wants them: seconds and an offset, in the hint and the placeholder', () => {
    const head = (schema: object): string => /<div class="head">[^]*?<\/div>[^]*?<input [^>]*>/.exec(view({ type: 'string', ...schema }).html.split('<div class="inputs">')[1] ?? '')?.[0] ?? ''
    const time = head({ format: 'time' })
    assert.match(time, /<span class="hint">time with seconds and an offset, as 14:30:00Z<\/span>/)
    assert.match(time, / placeholder="14:30:00Z"/)
    const dateTime = head({ format: 'date-time', maxLength: 30 })
    assert.match(dateTime, /<span class="hint">up to 30 characters · date-time with seconds and an offset, as 2026-12-07T14:30:00Z<\/span>/)
    assert.match(dateTime, / placeholder="2026-12-07T14:30:00Z"/)
    // the form's own example comes first, escaped like every value from s
    assert.match(head({ format: 'time', examples: ['09:00:00+01:00 "<b>'] }), / placeholder="09:00:00\+01:00 &quot;&lt;b&gt;"/)
    const date = head({ format: 'date' })
    assert.match(date, /<span class="hint">date<\/span>/)
    assert.doesNotMatch(date, /placeholder/)
  })

  it('writes what the page checks before sending on the node, escaped', () => {
    const { html } = view({
      type: 'object',
      properties: {
        sku: { type: 'string', minLength: 2, maxLength: 9, pattern: '^"<[a-z]>"$', format: 'date' },
        n: { type: 'integer', minimum: 1, maximum: 9, exclusiveMinimum: 0, exclusiveMaximum: 10, multipleOf: 2 }
      }
    })
    assert.match(html, /data-kind="string" data-min-length="2" data-max-length="9" data-pattern="\^&quot;&lt;\[a-z\]&gt;&quot;\$" data-format="date">/)
    assert.match(html, /data-kind="integer" data-minimum="1" data-maximum="9" data-exclusive-minimum="0" data-exclusive-maximum="10">/)
  })
})
