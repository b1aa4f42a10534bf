import { actor, type ActorOptions } from './actor.ts'
import { held, type Answer, type Client } from './client.ts'
import { bytes, duplicated, invalidUtf8, padded } from './bytes.ts'
import { formCheck } from './catalogue.ts'
import { gated, shut, type Gate } from './gate.ts'
import { generate, random, type Generated } from './generate.ts'
import type { Admits, Judge } from './judge.ts'
import { KEYWORDS, nearMisses, type NearMiss, type NearMisses } from './near-miss.ts'
import { acted, difference, isJsonResponse, type Results } from './results.ts'
import { constraints } from './vocabulary.ts'
import type { ActorReport, Request, Response } from './types.ts'

// draft §5 and §6: the act. Without acts, only bodies that a conformant address must refuse are
// sent; each is built around a value s admits, so that an address acting on one has shown a fault.

export interface ActOptions {
  readonly acts: number
  readonly bodySize: number
  readonly seed: number
  /** The acts are written by a constrained decoder, not the generator. */
  readonly actor?: Omit<ActorOptions, 'acts' | 'seed'>
}

const JSON_TYPE = { 'content-type': 'application/json' }
// draft Appendix A posts with `curl -d@-`: application/x-www-form-urlencoded.
const CONTENT_TYPES: readonly Readonly<Record<string, string>>[] =
  [JSON_TYPE, { 'content-type': 'application/x-www-form-urlencoded' }, { 'content-type': 'text/plain' }, {}]
export const BASES = 3
const PER_KEYWORD = 2
const TRIES = 40

const post = (body: Uint8Array, headers: Readonly<Record<string, string>> = JSON_TYPE, chunked = false): Request =>
  ({ method: 'POST', headers, body, ...(chunked ? { chunked } : {}) })

/** s as the act checks need it: the form and its judge, or why there is none to reason about. */
export type Form = { readonly form: object, readonly judge: Judge } | { readonly form?: undefined, readonly judge?: undefined, readonly none: string }

/** The checks of §5 and §6, given s (or why there is none); `gate` counts what the host's gate answered. */
export async function checkAct (client: Client, results: Results, s: Form, options: ActOptions, gate: Gate): Promise<ActorReport | undefined> {
  const refusals: Answer[] = [] // answers to bodies that must be refused, sent as application/json
  const refuse = async (id: string, requests: readonly Request[]): Promise<void> => {
    const answers: Answer[] = []
    for (const request of requests) answers.push(await client.exchange(request))
    for (const answer of answers) {
      gate.saw(answer)
      if (answer.response !== undefined && answer.request.headers === JSON_TYPE) refusals.push(answer)
    }
    conclude(results, id, answers)
  }

  await refuse('5.2-empty', [post(new Uint8Array(0))])
  const byContentType = await contentTypes(client, refusals, gate)

  const { form } = s
  const admits = form === undefined ? undefined : s.judge.admits
  const { values, why } = admits === undefined ? { values: [] } : admitted(form as object, admits, Math.max(BASES, options.actor === undefined ? options.acts : 0), options.seed)
  const base = values[0]
  // why a check that needs s, or a value it admits, cannot run: the most telling reason known now
  const noValue = (): string => form === undefined
    ? s.none
    : s.judge.why ?? (why === undefined ? 'no value that s admits could be generated' : `no value that s admits could be generated: ${why}`)
  const optional = async (id: string, build: (value: unknown) => Uint8Array | string | undefined, absent: string): Promise<void> => {
    if (base === undefined) return results.skip(id, noValue())
    for (const { value } of values) {
      const body = build(value)
      if (body !== undefined) return refuse(id, [post(typeof body === 'string' ? bytes(body) : body)])
    }
    results.skip(id, form === undefined ? absent : s.judge.why ?? absent)
  }

  await optional('5.2-trailing', (value) => `${JSON.stringify(value)} x`, noValue())
  await optional('5.2-duplicate', (value) => duplicated(value, 'same', false), 'no value that s admits has a member')
  await optional('5.2-duplicate-nested', (value) => duplicated(value, 'same', true), 'no value that s admits has an object with a member below the top')
  await optional('5.2-duplicate-escaped', (value) => duplicated(value, 'escaped', false), 'no value that s admits has a member')
  await optional('5.2-utf8', (value) => invalidUtf8(value, admits as Admits), 'no value that s admits has a string that may hold U+FFFD')
  // a value s admits that the checker could not build for its own bounds: the run is unfinished
  if (base === undefined && why !== undefined && s.form !== undefined) results.limits.push(noValue())
  if (base === undefined) {
    results.skip('5.2-size-declared', noValue())
    results.skip('5.2-size-chunked', noValue())
  } else {
    const large = padded(base.value, options.bodySize)
    await refuse('5.2-size-declared', [post(large)])
    await refuse('5.2-size-chunked', [post(large, JSON_TYPE, true)])
  }

  const generated = options.actor === undefined ? options.acts : 0
  if (form !== undefined) await keywords(form, values, s.judge, generated, refuse, results)
  let byActor: ActorReport | undefined
  if (options.actor !== undefined && form !== undefined) {
    byActor = await actor(client, results, form, s.judge, refusals, gate, { ...options.actor, acts: options.acts, seed: options.seed })
  }
  // without s, the acts' checks say why they could not run, whoever writes the acts
  if (options.actor !== undefined && form === undefined) results.skip('5.2-decoder', noValue())
  const withActs = byActor !== undefined ? undefined : await acts(client, results, values, options.acts, noValue(), gate)
  const finding = byContentType ?? withActs
  if (finding === undefined) results.pass('5.1-content-type')
  else if ('held' in finding) results.skip('5.1-content-type', finding.held)
  else if ('gate' in finding) results.gate('5.1-content-type', finding.gate)
  else results.fail('5.1-content-type', finding.fault, finding.answers)
  uniform(results, refusals, gate)
  return byActor
}

/**
 * Distinct values s admits, the least first, as the judge decides; when none, why, if a bound of
 * s is past what the checker builds.
 */
export function admitted (form: object, admits: Admits, wanted: number, seed: number): { values: Generated[], why?: string } {
  const rng = random(seed)
  const found = new Map<string, Generated>()
  let why: string | undefined
  for (let i = 0; i < wanted * TRIES && found.size < wanted; i++) {
    const failure: { why?: string } = {}
    const generated = generate(form as Record<string, unknown>, rng, i === 0, failure)
    if (generated === undefined) {
      // a bound met once is met again: the tries left would each cost as much
      if (failure.why !== undefined && why !== undefined) break
      why ??= failure.why
      continue
    }
    const verdict = admits(generated.value)
    if (verdict === undefined) break
    if (!verdict.valid) continue
    const text = JSON.stringify(generated.value)
    if (!found.has(text)) found.set(text, generated)
  }
  return { values: [...found.values()], ...(why === undefined ? {} : { why }) }
}

/** The status an answer came with, and why its body did not come in full, if it did not. */
const status = (answer: Answer): string =>
  `${answer.response?.status ?? ''}${answer.response?.cut === undefined ? '' : ` (${answer.response.cut})`}`

/** A must-refuse check from its answers: an act fails it; only missing answers leave it open. */
function conclude (results: Results, id: string, answers: readonly Answer[]): void {
  const taken = answers.filter((a) => a.response !== undefined && acted(a.response))
  if (taken.length > 0) {
    return results.fail(id, `acted on a body it must refuse: answered ${taken.map(status).join(', ')}`, taken)
  }
  const holding = answers.find(held)
  if (holding !== undefined) return results.skip(id, holding.unanswered as string)
  const answered = answers.filter((a) => a.response !== undefined)
  if (answered.length > 0 && answered.every(gated)) return results.gate(id, shut(answered[0] as Answer))
  results.pass(id)
}

/** What a check found before it can be concluded: a fault with its evidence, or why it could not tell. */
type Finding = { readonly fault: string, readonly answers: readonly Answer[] } | { readonly held: string } | { readonly gate: string } | undefined

/** draft §5.1, without acts: a body that is refused is refused alike under every Content-Type. */
async function contentTypes (client: Client, refusals: Answer[], gate: Gate): Promise<Finding> {
  const answers: Answer[] = []
  for (const headers of CONTENT_TYPES) answers.push(await client.exchange(post(bytes('{'), headers)))
  const [json, ...others] = answers as [Answer, ...Answer[]]
  if (json.response !== undefined) refusals.push(json)
  const shutOut = answers.filter((a) => gate.saw(a))
  const held = answers.find((a) => a.response === undefined)
  if (held !== undefined) return { held: held.unanswered as string }
  if (shutOut.length > 0) return { gate: shut(shutOut[0] as Answer) }
  for (const other of others) {
    const differs = difference(json.response as Response, other.response as Response)
    if (differs !== undefined) return { fault: `an unparsable body is answered otherwise under another Content-Type (${differs})`, answers: [json, other] }
  }
  return undefined
}

/** draft §5.2 (3): near-misses of admitted values, one check per keyword of s. */
async function keywords (
  form: object,
  values: readonly Generated[],
  judge: Judge,
  acts: number,
  refuse: (id: string, requests: readonly Request[]) => Promise<void>,
  results: Results
): Promise<void> {
  const cap = Math.max(PER_KEYWORD, Math.min(acts, 5))
  const byKeyword = new Map<string, NearMiss[]>()
  const sent = new Set<string>()
  const misses: NearMisses = { found: [], beyond: new Map() }
  // a few values give every keyword its near-misses; more would only cost verdicts
  for (const generated of values.slice(0, BASES + 2)) nearMisses(generated, judge.admits, cap + 1, misses)
  for (const miss of misses.found) {
    const text = JSON.stringify(miss.value)
    const list = byKeyword.get(miss.keyword) ?? []
    if (sent.has(text) || list.length >= cap) continue
    sent.add(text)
    list.push(miss)
    byKeyword.set(miss.keyword, list)
  }
  for (const keyword of constraints(form)) {
    const id = formCheck(keyword)
    const built = byKeyword.get(keyword)
    if (built !== undefined) await refuse(id, built.map((miss) => post(bytes(JSON.stringify(miss.value)))))
    else if (misses.beyond.has(keyword)) results.limit(id, misses.beyond.get(keyword) as string)
    else if (judge.why !== undefined) results.skip(id, judge.why)
    else if (values.length === 0) results.skip(id, 'no value that s admits could be generated to build a near-miss from')
    else if ((KEYWORDS as readonly string[]).includes(keyword)) results.skip(id, `no near-miss that only "${keyword}" refuses could be built`)
    else results.skip(id, `the checker builds no near-miss for "${keyword}"`)
  }
}

// The acts sent, in turn: each Content-Type and GPT-Actor varied alone against a plain JSON act.
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const PLAN: readonly Readonly<Record<string, string>>[] = [JSON_TYPE, { ...JSON_TYPE, 'gpt-actor': 'fastify-gpt-check' }, FORM,
  { 'content-type': 'text/plain' }, {}, { ...JSON_TYPE, 'gpt-actor': 'someone-else/1.0' }]

/**
 * With acts: values s admits, each an act. A plain JSON act refused is a disagreement with the
 * independent validator (§5.2 (3)); one refused only with another Content-Type is §5.1's; only
 * with a GPT-Actor, §6's. Returns the §5.1 finding.
 */
async function acts (client: Client, results: Results, values: readonly Generated[], wanted: number, noValue: string, gate: Gate): Promise<Finding> {
  const ids = ['5.2-admitted', '5.3-success', '6-actor'] as const
  if (wanted === 0 || values.length === 0) {
    const why = wanted === 0 ? 'sends acts: run with acts (--acts N)' : noValue
    for (const id of ids) results.skip(id, why)
    return undefined
  }
  const answers: Answer[] = []
  for (let i = 0; i < wanted; i++) {
    // a form may admit fewer values than acts asked for: they are sent again
    const { value } = values[i % values.length] as Generated
    answers.push(await client.exchange(post(bytes(JSON.stringify(value)), PLAN[i % PLAN.length])))
  }
  const shutOut = answers.filter((a) => gate.saw(a))
  if (shutOut.length > 0 && answers.every((a) => held(a) || gated(a))) {
    for (const id of ids) results.gate(id, shut(shutOut[0] as Answer))
    return { gate: shut(shutOut[0] as Answer) }
  }
  // an admitted value met with a dropped connection was not acted on, as far as anyone can tell;
  // one the gate answered was not judged (src/check/gate.ts)
  const refused = (a: Answer): boolean => a.response === undefined ? !held(a) : !acted(a.response) && !gated(a)
  const plain = answers.filter((a) => a.request.headers === JSON_TYPE)
  const labelled = answers.filter((a) => a.request.headers['gpt-actor'] === undefined && a.request.headers !== JSON_TYPE)
  const actors = answers.filter((a) => a.request.headers['gpt-actor'] !== undefined)

  const disagreed = plain.filter(refused)
  if (plain.every(held)) results.skip('5.2-admitted', (plain[0] as Answer).unanswered as string)
  else if (disagreed.length === 0) results.pass('5.2-admitted')
  else {
    const first = disagreed[0] as Answer
    results.fail('5.2-admitted', `s admits ${new TextDecoder().decode(first.request.body)} (the independent validator: valid), ` +
      `yet the address ${first.response === undefined ? `gave ${first.unanswered}` : `answered ${status(first)}`}` +
      `${disagreed.length > 1 ? ` (${disagreed.length} such values)` : ''}`, disagreed)
  }
  const taken = answers.filter((a) => a.response !== undefined && acted(a.response))
  const malformed = taken.filter(({ response }) => response?.status !== 200 || !isJsonResponse(response))
  if (taken.length === 0) results.skip('5.3-success', 'no act was taken')
  else if (malformed.length === 0) results.pass('5.3-success')
  else if (malformed.some((a) => a.response?.cut !== undefined)) {
    results.fail('5.3-success', `an act was answered ${status(malformed.find((a) => a.response?.cut !== undefined) as Answer)}: no whole JSON body`, malformed)
  } else results.fail('5.3-success', 'an act was not answered 200 with a JSON body and Content-Type application/json', malformed)

  const taking = plain.some((a) => a.response !== undefined && acted(a.response))
  if (actors.length === 0 || !taking) results.skip('6-actor', 'needs a plain JSON act taken and one with GPT-Actor: --acts 2 or more')
  else if (actors.some(refused)) results.fail('6-actor', 'an act with GPT-Actor was refused where a plain one was taken', actors.filter(refused))
  else results.pass('6-actor')

  const otherwise = labelled.filter(refused)
  return taking && otherwise.length > 0
    ? { fault: 'a value s admits was refused under another Content-Type', answers: otherwise }
    : undefined
}

/**
 * draft §5.3: every refusal is a bare 204, and all are alike. What the host's gate answered is left
 * out, unless some POST reached the address: a gate answers every POST alike, so a 401 or 403 that
 * others escaped depends on the body, and is the address's refusal.
 */
function uniform (results: Results, refusals: readonly Answer[], gate: Gate): void {
  const answered = refusals.filter((a) => a.response !== undefined && !acted(a.response) && (gate.passed || !gated(a)))
  const [first] = answered
  if (first === undefined) {
    const shutOut = refusals.find(gated)
    for (const id of ['5.3-bare-204', '5.3-uniform']) {
      if (shutOut === undefined) results.skip(id, 'no body was refused')
      else results.gate(id, shut(shutOut))
    }
    return
  }
  const notBare = answered.filter(({ response }) => response?.status !== 204 || response.body.length > 0)
  const [bare] = notBare
  if (bare === undefined) results.pass('5.3-bare-204')
  else {
    results.fail('5.3-bare-204', `a refusal was answered ${bare.response?.status ?? ''} ${bare.response?.body.length ?? 0} bytes` +
      (gated(bare) ? ', though other POSTs reached the address (answered 204 or acted on): a gate answers every body alike, this one judged the body' : ''), notBare)
  }
  const other = answered.find((a) => difference(first.response as Response, a.response as Response) !== undefined)
  if (other === undefined) results.pass('5.3-uniform')
  else {
    results.fail('5.3-uniform', `two refusals differ in ${difference(first.response as Response, other.response as Response) ?? ''}`, [first, other])
  }
}
