import { fragmentValue, unescape } from '../json/pointer.ts'
import { isObject, type Json, type JsonObject } from '../json/value.ts'
import { TIME_EXAMPLES } from '../lint/types.ts'
import { escapeHtml as esc } from './escape.ts'
import { oneLine } from './one-line.ts'

/**
 * The form as HTML inputs, generated once from s. Every value is a `.node` whose `data-kind` tells
 * the page's script how to read it back (see script.ts); every control has a <label>.
 */

/** Values nested deeper than this are entered as JSON. */
export const MAX_DEPTH = 24
/** How many times one $ref may open on one path: bounds a self-reference (draft §4.2). */
export const MAX_REPEAT = 3
/** Values rendered in one page; past this, the rest is entered as JSON. */
export const MAX_NODES = 500
/**
 * Values the page's script may build at once: at load, for every list's minItems (nested lists
 * multiply), or for one "Add item". A list that would need more is entered as JSON, so that a form
 * asking for 100,000 items gives a page that loads (draft §3.3), whatever the number.
 */
export const MAX_BUILT = 500

/** Where a value appears: the name its label shows, and whether it may be left out. */
interface Slot {
  readonly name: string
  readonly optional?: boolean
  /** An array item: its label carries a number the script keeps current. */
  readonly item?: boolean
  /** The root or an alternative of anyOf: an object shown without a frame of its own. */
  readonly bare?: boolean
}

interface Context {
  readonly root: Json
  /** The $refs open on the current path. */
  readonly open: string[]
  id: number
  nodes: number
  depth: number
  /** How many copies of what is rendered now the script builds at once: the minItems around it, multiplied. */
  copies: number
  /** Values the script builds at load or in one action, counted so far (at most MAX_BUILT). */
  built: number
}

const start = (form: JsonObject): Context => ({ root: form, open: [], id: 0, nodes: 0, depth: 0, copies: 1, built: 0 })
const BODY: Slot = { name: 'body', bare: true }

export function renderInputs (form: JsonObject): string {
  return value(form, start(form), BODY)
}

/** The body as one input of JSON, for where the form's own inputs are not shown (`why`). */
export const renderBodyInput = (why: string): string => json(start({}), BODY, {}, why)

const count = (v: Json | undefined): number | undefined => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined
const finite = (v: Json | undefined): number | undefined => typeof v === 'number' && Number.isFinite(v) ? v : undefined
const strings = (v: Json | undefined): string[] => Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []
const nextId = (ctx: Context): string => `v${++ctx.id}`
/** How a JSON value reads in a label: text as itself, anything else as JSON. */
const show = (v: Json | undefined): string => typeof v === 'string' ? (v === '' ? '(empty text)' : v) : JSON.stringify(v ?? null)

// Keywords that say what a value is about rather than what it may be.
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', '$comment', '$defs', 'definitions',
  '$schema', '$id', 'deprecated', 'readOnly', 'writeOnly'])

function value (schema: Json, ctx: Context, slot: Slot): string {
  const opened = ctx.open.length
  try {
    let s = schema
    while (isObject(s) && typeof s['$ref'] === 'string') {
      const ref = s['$ref']
      if (ctx.open.filter((r) => r === ref).length >= MAX_REPEAT) return json(ctx, slot, s, 'it repeats itself from here on')
      const target = fragmentValue(ctx.root, ref)
      if (target === undefined) return json(ctx, slot, s, 'its $ref is not shown as inputs')
      ctx.open.push(ref)
      s = withSiblings(target, s)
    }
    if (++ctx.nodes > MAX_NODES || ctx.depth >= MAX_DEPTH) return json(ctx, slot, s, 'too deep for inputs')
    ctx.built += ctx.copies
    ctx.depth++
    try {
      return node(s, ctx, slot)
    } finally {
      ctx.depth--
    }
  } finally {
    ctx.open.length = opened
  }
}

/** A $ref's target with the keywords written beside the $ref (a description, say) laid over it. */
function withSiblings (target: Json, reference: JsonObject): Json {
  const { $ref: _ref, ...rest } = reference
  if (Object.keys(rest).length === 0) return target
  if (target === true) return rest
  if (!isObject(target)) return target
  return merge(target, rest)
}

/** Two schemas as one for display: properties joined, required names united, later keywords win. */
function merge (a: JsonObject, b: JsonObject): JsonObject {
  const out: Record<string, Json> = { ...a, ...b }
  if (isObject(a['properties']) && isObject(b['properties'])) out['properties'] = { ...a['properties'], ...b['properties'] }
  if (Array.isArray(a['required']) && Array.isArray(b['required'])) {
    out['required'] = [...new Set([...strings(a['required']), ...strings(b['required'])])]
  }
  return out
}

/** What a schema's inputs look like; 'json' where no input fits. */
function kindOf (s: JsonObject): string {
  if ('const' in s) return 'const'
  if (Array.isArray(s['enum'])) return 'enum'
  if (Array.isArray(s['anyOf']) || Array.isArray(s['oneOf'])) return 'anyOf'
  const type = s['type']
  if (Array.isArray(type)) return type.length === 1 && typeof type[0] === 'string' ? type[0] : 'types'
  if (typeof type === 'string') return type
  const has = (...keys: string[]): boolean => keys.some((key) => key in s)
  if (has('properties', 'required', 'additionalProperties', 'patternProperties')) return 'object'
  if (has('items', 'prefixItems', 'minItems', 'maxItems')) return 'array'
  if (has('minLength', 'maxLength', 'pattern', 'format')) return 'string'
  if (has('minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf')) return 'number'
  return 'json'
}

function node (s: Json, ctx: Context, slot: Slot): string {
  if (s === false) return never(ctx, slot)
  if (!isObject(s)) return json(ctx, slot, {}, 'any JSON value')
  if (Array.isArray(s['allOf'])) {
    // Shown as one schema: each part (one $ref deep, its own allOf dropped) laid over the rest.
    // The address still checks every part.
    const { allOf, ...rest } = s
    const parts = (allOf as readonly Json[]).map((part) => isObject(part) && typeof part['$ref'] === 'string' ? withSiblings(fragmentValue(ctx.root, part['$ref']) ?? true, part) : part)
    if (parts.includes(false)) return never(ctx, slot)
    const flat = parts.filter(isObject).map(({ allOf: _nested, ...part }) => part)
    return node(flat.reduce((all: JsonObject, part) => merge(all, part), rest), ctx, slot)
  }
  switch (kindOf(s)) {
    case 'const': return constant(ctx, slot, s, s['const'] ?? null)
    case 'null': return constant(ctx, slot, s, null)
    case 'enum': return choice(ctx, slot, s, s['enum'] as readonly Json[])
    case 'anyOf': return alternatives(ctx, slot, s)
    case 'types': return types(ctx, slot, s)
    case 'string': return text(ctx, slot, s)
    case 'number': case 'integer': return number(ctx, slot, s)
    case 'boolean': return boolean(ctx, slot, s)
    case 'object': return object(ctx, slot, s)
    case 'array': return array(ctx, slot, s)
    default: return json(ctx, slot, s, 'any JSON value')
  }
}

/** The parts every value shows: its label, hints, and the "include" switch of an optional member. */
function label (slot: Slot, s: JsonObject, hints: readonly string[], forId?: string): string {
  const index = slot.item === true ? ' <span class="index">1</span>' : ''
  const title = typeof s['title'] === 'string' && s['title'] !== slot.name ? ` <span class="title">${esc(s['title'])}</span>` : ''
  const name = `<span class="name">${esc(slot.name)}${index}</span>${title}`
  const tag = forId === undefined ? `<span class="label">${name}</span>` : `<label class="label" for="${forId}">${name}</label>`
  const hint = hints.length > 0 ? ` <span class="hint">${esc(hints.join(' · '))}</span>` : ''
  const include = slot.optional === true
    ? ` <label class="inc"><input type="checkbox" class="include" aria-label="include ${esc(slot.name)}"> include</label>`
    : ''
  return tag + hint + include
}

/** The description as help text, and the attribute that ties it to its control. */
function help (ctx: Context, s: JsonObject): { html: string, describedBy: string } {
  if (typeof s['description'] !== 'string' || s['description'] === '') return { html: '', describedBy: '' }
  const id = nextId(ctx)
  return { html: `<p class="help" id="${id}">${esc(s['description'])}</p>`, describedBy: ` aria-describedby="${id}"` }
}

function lengthHint (min: number | undefined, max: number | undefined, unit: string): string | undefined {
  const units = (n: number): string => `${n} ${unit}${n === 1 ? '' : 's'}`
  if (max !== undefined) return min === max ? `exactly ${units(max)}` : min ? `${min}–${units(max)}` : `up to ${units(max)}`
  return min ? `at least ${units(min)}` : undefined
}

// Formats a browser has an input for, whose value is the text as typed and as the format writes it.
// Not type=email: Chromium rewrites an internationalized domain to punycode, so the body would not
// say what was typed; an email gets the email keyboard instead.
const INPUT_TYPES: Readonly<Record<string, string>> = { date: 'type="date"', uri: 'type="url"', iri: 'type="url"', email: 'type="text" inputmode="email"' }

function text (ctx: Context, slot: Slot, s: JsonObject): string {
  const id = nextId(ctx)
  const d = help(ctx, s)
  const min = count(s['minLength'])
  const max = count(s['maxLength'])
  const format = typeof s['format'] === 'string' ? s['format'] : undefined
  const pattern = typeof s['pattern'] === 'string' ? s['pattern'] : undefined
  // a time is refused without its seconds and offset (RFC 3339): the hint and placeholder show them
  const clock = format === undefined ? undefined : TIME_EXAMPLES.get(format)
  const hints = [lengthHint(min, max, 'character'), clock === undefined ? format : `${format ?? ''} with seconds and an offset, as ${clock}`,
    pattern === undefined ? undefined : `pattern ${pattern}`].filter((h): h is string => typeof h === 'string')
  const examples = s['examples']
  const example = Array.isArray(examples) && typeof examples[0] === 'string' ? examples[0] : clock
  const placeholder = example === undefined ? '' : ` placeholder="${esc(example)}"`
  const attributes = `id="${id}" class="value"${max === undefined ? '' : ` maxlength="${max}"`}${min ? ` minlength="${min}"` : ''}${placeholder}${d.describedBy}`
  const initial = typeof s['default'] === 'string' ? s['default'] : ''
  // Every format names a one-line value; so does a pattern that admits no line break.
  const short = format !== undefined || (pattern !== undefined && oneLine(pattern)) || (max !== undefined && max <= 100)
  const type = INPUT_TYPES[format ?? ''] ?? 'type="text"'
  // A long text gets a text area; the newline after <textarea> is dropped by the parser, keeping a leading one in the value.
  const control = short
    ? `<input ${type} ${attributes} value="${esc(initial)}">`
    : `<textarea ${attributes} rows="${max !== undefined && max > 1000 ? 6 : 3}">\n${esc(initial)}</textarea>`
  // What the page checks before sending (script.ts): the length in code points, and the pattern.
  const checks = `${min ? ` data-min-length="${min}"` : ''}${max === undefined ? '' : ` data-max-length="${max}"`}` +
    `${pattern === undefined ? '' : ` data-pattern="${esc(pattern)}"`}${format === undefined ? '' : ` data-format="${esc(format)}"`}`
  return `<div class="node" data-kind="string"${checks}><div class="head">${label(slot, s, hints, id)}</div>${d.html}${control}</div>`
}

function number (ctx: Context, slot: Slot, s: JsonObject): string {
  const id = nextId(ctx)
  const d = help(ctx, s)
  const integer = s['type'] === 'integer'
  const [min, max, below, above, step] = ['minimum', 'maximum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf'].map((k) => finite(s[k]))
  const range = min !== undefined && max !== undefined
    ? `${min} to ${max}`
    : [min === undefined ? '' : `≥ ${min}`, above === undefined ? '' : `> ${above}`, max === undefined ? '' : `≤ ${max}`, below === undefined ? '' : `< ${below}`]
        .filter(Boolean).join(', ')
  const hints = [integer ? 'integer' : 'number', range, step === undefined ? '' : `multiple of ${step}`].filter(Boolean)
  // min and max only where the browser's own stepping agrees with the form: the address is the judge.
  const bound = (name: string, v: number | undefined): string => v !== undefined && (!integer || Number.isInteger(v)) ? ` ${name}="${v}"` : ''
  const initial = finite(s['default'])
  const control = `<input type="number" id="${id}" class="value" step="${integer ? 1 : 'any'}" inputmode="${integer ? 'numeric' : 'decimal'}"` +
    `${bound('min', min)}${bound('max', max)}${initial === undefined ? '' : ` value="${initial}"`}${d.describedBy}>`
  // The bounds the page checks before sending (script.ts); multipleOf is left to the address.
  const checks = ([['minimum', min], ['maximum', max], ['exclusive-minimum', above], ['exclusive-maximum', below]] as const)
    .map(([name, v]) => v === undefined ? '' : ` data-${name}="${v}"`).join('')
  return `<div class="node" data-kind="${integer ? 'integer' : 'number'}"${checks}><div class="head">${label(slot, s, hints, id)}</div>${d.html}${control}</div>`
}

function boolean (ctx: Context, slot: Slot, s: JsonObject): string {
  if (slot.optional === true) return tristate(ctx, slot, s)
  const id = nextId(ctx)
  const d = help(ctx, s)
  const checked = s['default'] === true ? ' checked' : ''
  return `<div class="node check" data-kind="boolean"><div class="head"><input type="checkbox" id="${id}" class="value"${checked}${d.describedBy}> ` +
    `${label(slot, s, [], id)}</div>${d.html}</div>`
}

/**
 * A boolean that may be left out: one choice of three (left out, true, false), so that whether it
 * is sent and what it says are never two checkboxes side by side. It starts left out.
 */
function tristate (ctx: Context, slot: Slot, s: JsonObject): string {
  const d = help(ctx, s)
  const group = nextId(ctx)
  const hints = typeof s['default'] === 'boolean' ? [`default ${s['default']}`] : []
  const radio = (v: string, text: string, checked = ''): string =>
    `<label class="choice${v === '' ? ' out' : ''}"><input type="radio" class="value" name="${group}" value="${v}"${checked}> ${text}</label>`
  return `<fieldset class="node" data-kind="tristate"${d.describedBy}><legend class="head">${label({ ...slot, optional: false }, s, hints)}</legend>${d.html}` +
    `<div class="choices">${radio('', 'left out', ' checked')}${radio('true', 'true')}${radio('false', 'false')}</div></fieldset>`
}

function constant (ctx: Context, slot: Slot, s: JsonObject, v: Json): string {
  const d = help(ctx, s)
  return `<div class="node" data-kind="const" data-value="${esc(JSON.stringify(v))}"><div class="head">${label(slot, s, ['always'])} ` +
    `<code class="const">${esc(JSON.stringify(v))}</code></div>${d.html}</div>`
}

function never (_ctx: Context, slot: Slot): string {
  return `<div class="node" data-kind="never"><div class="head">${label(slot, {}, ['no value is allowed'])}</div></div>`
}

/** A value no input fits: typed as JSON in a text area of its own. */
function json (ctx: Context, slot: Slot, s: Json, why: string): string {
  const schema = isObject(s) ? s : {}
  const id = nextId(ctx)
  const d = help(ctx, schema)
  return `<div class="node" data-kind="json"><div class="head">${label(slot, schema, ['JSON', why], id)}</div>${d.html}` +
    `<textarea id="${id}" class="value code" rows="3" spellcheck="false" autocapitalize="off"${d.describedBy}>\n</textarea></div>`
}

/** enum: a few short choices as radio buttons, more as a list. */
function choice (ctx: Context, slot: Slot, s: JsonObject, values: readonly Json[]): string {
  const d = help(ctx, s)
  const fallback = JSON.stringify(s['default'])
  const chosen = values.findIndex((v) => JSON.stringify(v) === fallback)
  const option = (v: Json): string => typeof v === 'string' && v !== '' ? esc(v) : `<code>${esc(show(v))}</code>`
  if (values.length <= 6 && values.every((v) => show(v).length <= 40)) {
    const group = nextId(ctx)
    const radios = values.map((v, i) =>
      `<label class="choice"><input type="radio" class="value" name="${group}" value="${esc(JSON.stringify(v))}"${i === chosen ? ' checked' : ''}> ${option(v)}</label>`)
    return `<fieldset class="node" data-kind="enum"${d.describedBy}><legend class="head">${label(slot, s, ['choose one'])}</legend>${d.html}` +
      `<div class="choices">${radios.join('')}</div></fieldset>`
  }
  const id = nextId(ctx)
  const options = values.map((v, i) => `<option value="${esc(JSON.stringify(v))}"${i === chosen ? ' selected' : ''}>${esc(show(v))}</option>`)
  return `<div class="node" data-kind="enum"><div class="head">${label(slot, s, ['choose one'], id)}</div>${d.html}` +
    `<select id="${id}" class="value"${d.describedBy}><option value="">choose…</option>${options.join('')}</select></div>`
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'text', number: 'number', integer: 'integer', boolean: 'true or false', null: 'null', object: 'object', array: 'list'
}

/** anyOf (or oneOf): pick an alternative, fill in its inputs. Keywords beside anyOf apply to every alternative. */
function alternatives (ctx: Context, slot: Slot, s: JsonObject): string {
  const key = Array.isArray(s['anyOf']) ? 'anyOf' : 'oneOf'
  const { [key]: list, ...rest } = s
  const shared = Object.fromEntries(Object.entries(rest).filter(([k]) => !ANNOTATIONS.has(k)))
  const alts = list as readonly Json[]
  const options = alts.map((alt, i) => altName(alt, i))
  const bodies = alts.map((alt) => alt === true ? shared : isObject(alt) ? merge(shared, alt) : alt)
  return pick(ctx, slot, s, options, bodies)
}

/** `type: [a, b]`: one alternative per type. */
function types (ctx: Context, slot: Slot, s: JsonObject): string {
  const names = strings(s['type'])
  const rest = Object.fromEntries(Object.entries(s).filter(([k]) => !ANNOTATIONS.has(k)))
  return pick(ctx, slot, s, names.map((t) => TYPE_NAMES[t] ?? t), names.map((type) => ({ ...rest, type })))
}

function pick (ctx: Context, slot: Slot, s: JsonObject, names: readonly string[], bodies: readonly Json[]): string {
  const d = help(ctx, s)
  const id = nextId(ctx)
  const seen = new Map<string, number>()
  const unique = names.map((name) => {
    const n = (seen.get(name) ?? 0) + 1
    seen.set(name, n)
    return n === 1 ? name : `${name} (${n})`
  })
  const options = unique.map((name, i) => `<option value="${i}">${esc(name)}</option>`).join('')
  const alts = bodies.map((body, i) => `<div class="alt"${i === 0 ? '' : ' hidden'}>${value(body, ctx, { name: slot.name, bare: true })}</div>`)
  return `<fieldset class="node" data-kind="anyOf"${d.describedBy}><legend class="head">${label(slot, s, [])}</legend>${d.html}` +
    `<div class="picker"><label for="${id}">kind of ${esc(slot.name)}</label> <select id="${id}" class="pick">${options}</select></div>` +
    `${alts.join('')}</fieldset>`
}

/** What an alternative is called in the list: its title, its $defs name, its const, its shape. */
function altName (alt: Json, i: number): string {
  if (alt === true) return 'any JSON value'
  if (!isObject(alt)) return 'nothing'
  if (typeof alt['title'] === 'string') return alt['title']
  if (typeof alt['$ref'] === 'string') {
    const last = alt['$ref'].split('/').pop()
    if (last !== undefined && last !== '' && last !== '#') return unescape(last)
  }
  if ('const' in alt) return show(alt['const'])
  const properties = alt['properties']
  if (isObject(properties)) {
    for (const [name, p] of Object.entries(properties)) if (isObject(p) && 'const' in p) return `${name}: ${show(p['const'])}`
    const names = Object.keys(properties)
    if (names.length > 0) return `object (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''})`
  }
  if (Array.isArray(alt['enum'])) return alt['enum'].slice(0, 3).map(show).join(' / ') + (alt['enum'].length > 3 ? ' / …' : '')
  if (typeof alt['type'] === 'string') return TYPE_NAMES[alt['type']] ?? alt['type']
  return `option ${i + 1}`
}

function object (ctx: Context, slot: Slot, s: JsonObject): string {
  const properties = isObject(s['properties']) ? s['properties'] : {}
  const required = new Set(strings(s['required']))
  const names = [...new Set([...Object.keys(properties), ...required])]
  const open = s['additionalProperties'] !== false || isObject(s['patternProperties'])
  // A map with no named members is typed as JSON.
  if (names.length === 0 && open) return json(ctx, slot, s, 'members of any name')
  const d = help(ctx, s)
  const fields = names.map((name) => {
    const optional = !required.has(name)
    const schema = properties[name] ?? true
    if (schema === false && optional) return '' // never present: nothing to fill in
    return `<div class="field${optional ? ' omitted' : ''}" data-name="${esc(name)}"${optional ? ' data-optional' : ''}>` +
      `${value(schema, ctx, { name, optional })}</div>`
  }).join('')
  const other = open
    ? '<p class="hint">Other members can be written in the JSON body.</p>'
    : fields === '' ? '<p class="hint">No members: the value is <code>{}</code>.</p>' : ''
  if (slot.bare === true) {
    return `<div class="node" data-kind="object" role="group" aria-label="${esc(slot.name)}">${d.html}${fields}${other}</div>`
  }
  const hints = [lengthHint(count(s['minProperties']), count(s['maxProperties']), 'member')].filter((h): h is string => h !== undefined)
  return `<fieldset class="node" data-kind="object"${d.describedBy}><legend class="head">${label(slot, s, hints)}</legend>${d.html}${fields}${other}</fieldset>`
}

function array (ctx: Context, slot: Slot, s: JsonObject): string {
  if (Array.isArray(s['prefixItems'])) return json(ctx, slot, s, 'a tuple')
  const items = s['items'] ?? true
  const min = count(s['minItems']) ?? 0
  const max = items === false ? 0 : count(s['maxItems'])
  const d = help(ctx, s)
  const hints = [lengthHint(min, max, 'item'), s['uniqueItems'] === true ? 'no two alike' : undefined]
    .filter((h): h is string => h !== undefined)
  // The item's inputs are built min times at load (once per "Add item" where min is 0): past
  // MAX_BUILT in all, the list is written as JSON instead, and nothing is built.
  const [copies, built, nodes] = [ctx.copies, ctx.built, ctx.nodes]
  ctx.copies = copies * Math.max(min, 1)
  const item = value(items, ctx, { name: 'item', item: true })
  ctx.copies = copies
  if (ctx.built > MAX_BUILT) {
    [ctx.built, ctx.nodes] = [built, nodes]
    return json(ctx, slot, s, min > 1 ? `at least ${min} items, too many to build as inputs` : 'too many inputs to build')
  }
  return `<fieldset class="node" data-kind="array" data-min="${min}"${max === undefined ? '' : ` data-max="${max}"`}${d.describedBy}>` +
    `<legend class="head">${label(slot, s, hints)}</legend>${d.html}<ol class="items"></ol>` +
    `<template><li class="item">${item}<button type="button" class="remove">Remove</button></li></template>` +
    `<button type="button" class="add" aria-label="Add item to ${esc(slot.name)}">Add item</button></fieldset>`
}
