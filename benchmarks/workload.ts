// What both sides serve and what the load generator sends: one form, one act result, the bodies
// and the scenarios. Imported by the hosts and by the load generator, so both build the same bytes.
import { Buffer } from 'node:buffer'
import type { LoadJob } from './load.ts'

/** An order form: an object holding an array of small objects with strings and numbers. */
export const form = {
  type: 'object',
  properties: {
    customer: { type: 'string', minLength: 1, maxLength: 120 },
    note: { type: 'string', maxLength: 4000 },
    deliverOn: { type: 'string', format: 'date' },
    items: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: {
        type: 'object',
        properties: {
          sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' },
          name: { type: 'string', minLength: 1, maxLength: 120 },
          qty: { type: 'integer', minimum: 1, maximum: 999 },
          price: { type: 'number', minimum: 0, maximum: 100000 },
          tags: { type: 'array', maxItems: 8, items: { type: 'string', enum: ['fresh', 'frozen', 'bio', 'fragile', 'gift'] } }
        },
        required: ['sku', 'name', 'qty', 'price'],
        additionalProperties: false
      }
    }
  },
  required: ['customer', 'items'],
  additionalProperties: false
} as const

export const prompt = 'A grocery order desk. Place one order: who you are and the items you want.'
export const messages = [{ role: 'user', content: 'Can I order for Friday?' }, { role: 'assistant', content: 'Yes: set deliverOn.' }]

/** The arrival both sides send on GET: the bytes fastify-gpt precomputes, written by hand. */
export const arrivalBytes = Buffer.from(JSON.stringify({ p: prompt, m: messages, s: form }))

/** What both sides answer to an accepted order. */
export function receipt (order: { items: readonly unknown[] }): { accepted: true, items: number } {
  return { accepted: true, items: order.items.length }
}

/** Both sides' body limit, so that a 64 KiB act fits and the oversize one is over it on both. */
export const BODY_LIMIT = 128 * 1024

// ---- bodies: deterministic, with non-ASCII text and a few escapes ----

const NAMES = [
  'Café crème', 'Crème brûlée', 'Smørrebrød', 'Ærøskøbing honey', '日本茶 (sencha)', 'Пирожки с капустой',
  'Ελιές Καλαμάτας', 'Piña colada mix', 'Jalapeño "hot" sauce', 'Brezel – groß', 'Tarte Tatin 🍎',
  'Bagels, sesame', 'Oat milk 1 L', 'Dark chocolate 85 %', 'Olive oil\\extra virgin'
]
const TAGS = ['fresh', 'frozen', 'bio', 'fragile', 'gift'] as const

/** A small linear congruential generator: the same sequence in every process. */
function numbers (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

interface Item { sku: string, name: string, qty: number, price: number, tags?: string[] }
interface Order { customer: string, note?: string, deliverOn?: string, items: Item[] }

function item (next: () => number): Item {
  const letters = String.fromCharCode(65 + Math.floor(next() * 26), 65 + Math.floor(next() * 26), 65 + Math.floor(next() * 26))
  const out: Item = {
    sku: `${letters}-${String(Math.floor(next() * 10000)).padStart(4, '0')}`,
    name: NAMES[Math.floor(next() * NAMES.length)] as string,
    qty: 1 + Math.floor(next() * 12),
    price: Math.round(next() * 5000) / 100
  }
  if (next() < 0.5) out.tags = TAGS.filter(() => next() < 0.3)
  return out
}

/** An order whose JSON text is `bytes` long, give or take a few bytes (the note pads it). */
function orderOf (bytes: number, seed: number): string {
  const next = numbers(seed)
  const order: Order = { customer: 'Zoë Ångström', deliverOn: '2025-12-05', items: [item(next)] }
  const size = (): number => Buffer.byteLength(JSON.stringify(order))
  let length = size()
  for (;;) {
    const candidate = item(next)
    const more = Buffer.byteLength(JSON.stringify(candidate)) + 1 // and a comma
    if (length + more > bytes - 40) break
    order.items.push(candidate)
    length += more
  }
  const room = bytes - length - ',"note":""'.length
  if (room > 0) order.note = 'Leave at the door, merci ✓ '.repeat(Math.ceil(room / 28)).slice(0, room)
  // trim the note until the UTF-8 length is not over the target (the check mark is 3 bytes)
  while (order.note !== undefined && size() > bytes) order.note = order.note.slice(0, -1)
  return JSON.stringify(order)
}

export const bodies = {
  /** ~200 B: one item and a note. */
  small: orderOf(200, 1),
  /** ~2 KiB: a dozen items. */
  medium: orderOf(2048, 2),
  /** ~64 KiB: hundreds of items. */
  large: orderOf(64 * 1024, 3),
  /**
   * The ~2 KiB order with `customer` repeated at the end as "". fastify-gpt refuses it as a
   * duplicate; Fastify's JSON.parse keeps the last value, which fails minLength: both reject it.
   */
  duplicate: '',
  /** Over BODY_LIMIT: its Content-Length is refused by both sides before the body is read. */
  oversize: orderOf(BODY_LIMIT + 64 * 1024, 4)
}
bodies.duplicate = `${bodies.medium.slice(0, -1)},"customer":""}`

// ---- scenarios ----

export type Side = 'baseline' | 'gpt'

export interface Scenario {
  readonly name: string
  readonly what: string
  /** Which host pair serves it. */
  readonly rateLimit: boolean
  readonly method: 'GET' | 'POST'
  readonly body?: string
  readonly connections: number
  readonly pipelining: number
  /** The status every response must have, per side. */
  readonly expect: Readonly<Record<Side, number>>
  /** The least ratio fastify-gpt/baseline (req/s) asked of the short rounds, if any. */
  readonly target?: number
}

const ok = { baseline: 200, gpt: 200 }

export const scenarios: readonly Scenario[] = [
  { name: 'get', what: 'GET the arrival', rateLimit: false, method: 'GET', connections: 50, pipelining: 10, expect: ok, target: 0.97 },
  { name: 'post-200B', what: `POST an accepted ${Buffer.byteLength(bodies.small)} B order`, rateLimit: false, method: 'POST', body: bodies.small, connections: 50, pipelining: 10, expect: ok, target: 0.90 },
  { name: 'post-2KB', what: `POST an accepted ${Buffer.byteLength(bodies.medium)} B order`, rateLimit: false, method: 'POST', body: bodies.medium, connections: 50, pipelining: 10, expect: ok, target: 0.90 },
  { name: 'post-64KB', what: `POST an accepted ${Buffer.byteLength(bodies.large)} B order`, rateLimit: false, method: 'POST', body: bodies.large, connections: 20, pipelining: 1, expect: ok, target: 0.85 },
  { name: 'post-duplicate', what: `POST the 2 KB order with a duplicate key (${Buffer.byteLength(bodies.duplicate)} B)`, rateLimit: false, method: 'POST', body: bodies.duplicate, connections: 50, pipelining: 10, expect: { baseline: 400, gpt: 204 } },
  { name: 'post-oversize', what: `POST ${Buffer.byteLength(bodies.oversize)} B, over the ${BODY_LIMIT} B limit`, rateLimit: false, method: 'POST', body: bodies.oversize, connections: 20, pipelining: 1, expect: { baseline: 413, gpt: 204 } },
  { name: 'get+rl', what: 'GET the arrival, rate limiting on', rateLimit: true, method: 'GET', connections: 50, pipelining: 10, expect: ok, target: 0.97 },
  { name: 'post-200B+rl', what: 'POST the ~200 B order, rate limiting on', rateLimit: true, method: 'POST', body: bodies.small, connections: 50, pipelining: 10, expect: ok, target: 0.90 }
]

/** The load generator's job for `scenario` against `url`, for a time or a number of requests. */
export function jobOf (url: string, scenario: Scenario, length: { duration: number } | { amount: number }): LoadJob {
  return {
    url,
    method: scenario.method,
    ...(scenario.body === undefined ? {} : { body: scenario.body }),
    connections: scenario.connections,
    pipelining: scenario.pipelining,
    ...length
  }
}
