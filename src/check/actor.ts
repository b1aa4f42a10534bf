import { parse, ParseError } from '../parse/parse.ts'
import type { Finding } from '../lint/index.ts'
import { TEXT_MATCHED } from '../lint/wire.ts'
import { bytes } from './bytes.ts'
import { held, printable, type Answer, type Client } from './client.ts'
import { decode } from './decoder.ts'
import { shut, type Gate } from './gate.ts'
import { decodeLlama } from './llama-decoder.ts'
import { fragmentValue, refPointer } from '../json/pointer.ts'
import type { Json } from '../json/value.ts'
import type { Judge } from './judge.ts'
import { acted, isJsonResponse, type Results } from './results.ts'
import type { ActorName, ActorReport, Refusal, Response, Walked } from './types.ts'

// draft §5.2 with a real constrained decoder acting: XGrammar compiles s and writes bodies as a
// model sampling under its grammar would (xgrammar.ts), or llama.cpp converts s and a model of
// random weights samples under its grammar (llama-cpp.ts). Each is posted as an act. A body the
// decoder writes is acted on exactly when it is strict JSON that s admits (the independent
// validator decides); each refused body is traced, as far as the checker can tell, to the lint
// finding that foresaw it.

/** Most bodies the actor writes in one run: each is a request and a walk of the grammar. */
export const MAX_ACTOR_ACTS = 1000
/** Tokens a walk may take before it is dropped: a body of a few kilobytes at most. */
const MAX_TOKENS = 800
const JSON_TYPE = { 'content-type': 'application/json' }

export interface ActorOptions {
  /** Which decoder writes the bodies. */
  readonly decoder: ActorName
  /** For llama-cpp: a GGUF file to sample with, in place of the model made for the run. */
  readonly model?: string
  readonly acts: number
  readonly seed: number
  /** When the run must end (ms since the epoch): the decoder's thread or process gets what is left. */
  readonly deadline: number
  /** The converter and its version, and what lint's profile of the decoder describes. */
  readonly version: string
  readonly profile: string
}

/**
 * The substrings of a finding's message that foresee a refusal of the parser, by its reason: the
 * wire-level slips lint names for the decoder (src/lint/wire.ts).
 */
const FORESEES: Readonly<Record<string, (finding: Finding) => boolean>> = {
  syntax: (f) => f.message.includes('raw control characters') || f.message.includes(TEXT_MATCHED),
  surrogate: (f) => f.message.includes('lone surrogate') || f.message.includes(TEXT_MATCHED),
  duplicate: (f) => f.message.includes('member name may repeat') || f.message.includes('repeat a member name'),
  number: (f) => f.rule === 'integer-unsafe' || f.message.includes('overflow'),
  proto: (f) => f.rule === 'proto-member',
  depth: (f) => f.rule === 'depth-beyond-limit'
}

/**
 * Where in s a keyword the validator reached through `$ref`s stands: each `$ref` to a fragment of s
 * followed. Undefined past a reference to anything else (an `$id`, an `$anchor`).
 */
export function inForm (form: unknown, location: string): string | undefined {
  let pointer = ''
  for (const segment of location.split('/').slice(1)) {
    if (segment !== '$ref') {
      pointer += `/${segment}`
      continue
    }
    // `pointer` is kept as a fragment writes it (percent-encoded), as the `$ref`s it follows are.
    const ref = fragmentValue(form as Json, `#${pointer}/$ref`)
    if (typeof ref !== 'string' || refPointer(ref) === undefined) return undefined
    pointer = ref.slice(1)
  }
  return pointer
}

/** Whether a keyword stands anywhere in s, as a keyword (not as the name of a member). */
function asserts (schema: unknown, keyword: string): boolean {
  if (Array.isArray(schema)) return schema.some((item) => asserts(item, keyword))
  if (schema === null || typeof schema !== 'object') return false
  return Object.entries(schema).some(([key, value]) => (key === keyword && typeof value === 'string') ||
    (key === 'properties' || key === 'patternProperties' || key === '$defs' || key === 'dependentSchemas'
      ? Object.values(value as object).some((member) => asserts(member, keyword))
      : asserts(value, keyword)))
}

const MARK = '\ue000'

/**
 * The member names on the way to the first string that holds a raw control character, read with
 * those characters taken out; undefined when the text is no JSON even so.
 */
export function rawIn (text: string): string[] | undefined {
  let inString = false
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string
    if (inString && c === '\\') {
      out += c + (text[++i] ?? '')
      continue
    }
    if (c === '"') inString = !inString
    out += inString && c < ' ' ? MARK : c
  }
  let value: unknown
  try {
    value = JSON.parse(out)
  } catch {
    return undefined
  }
  const find = (here: unknown, path: string[]): string[] | undefined => {
    if (typeof here === 'string') return here.includes(MARK) ? path : undefined
    if (here === null || typeof here !== 'object') return undefined
    for (const [key, member] of Object.entries(here)) {
      const named = Array.isArray(here) ? path : [...path, key]
      if (key.includes(MARK)) return named
      const found = find(member, named)
      if (found !== undefined) return found
    }
    return undefined
  }
  return find(value, [])
}

/** The member names a pointer into s names through `properties`: `/properties/a/properties/b/maxLength` names a, b. */
const members = (pointer: string): string[] => {
  const segments = pointer.split('/').slice(1)
  return segments.flatMap((segment, i) => segments[i - 1] === 'properties' && (i < 2 || segments[i - 2] !== 'properties') ? [unescape(segment)] : [])
}

const within = (location: string, pointer: string): boolean => location === pointer || location.startsWith(`${pointer}/`)

/** Why s or the parser refuses a body, and the finding that foresaw it; or that s admits it. */
function refusal (text: string, form: object, judge: Judge, findings: readonly Finding[]): Omit<Refusal, 'body'> & { readonly admitted: boolean, readonly formatted?: boolean } {
  let value: unknown
  try {
    value = parse(bytes(text))
  } catch (error) {
    const reason = error instanceof ParseError ? error.reason : 'syntax'
    const foreseeing = findings.filter((f) => FORESEES[reason]?.(f) === true)
    // of those, the one about the string that holds the raw character, when it can be told
    const names = reason === 'syntax' ? rawIn(text) : undefined
    const finding = foreseeing.find((f) => names !== undefined && members(f.pointer).join('/') === names.join('/')) ?? foreseeing[0]
    return { why: `not strict JSON (${reason})`, admitted: false, ...(finding === undefined ? {} : { finding: shown(finding) }) }
  }
  const verdict = judge.admits(value)
  if (verdict === undefined) return { why: `no verdict: ${judge.why ?? 'the independent validator gave none'}`, admitted: false }
  if (verdict.valid) {
    // 2020-12 makes format an annotation: the independent validator's reading of one is not the only
    // conformant one (catalogue.ts), so an address may refuse what it admits, as lint may foresee
    if (!asserts(form, 'format')) return { why: 's admits it', admitted: true }
    const finding = findings.find((f) => f.rule === 'decoder-loosens' && f.pointer.endsWith('/format'))
    return { why: 's admits it, as the independent validator reads "format"', admitted: true, formatted: true, ...(finding === undefined ? {} : { finding: shown(finding) }) }
  }
  const loosens = findings.filter((f) => f.rule === 'decoder-loosens')
  // the keyword that refuses the body, or a schema above it, is one lint says the decoder loosens
  const places = verdict.locations.map((location) => inForm(form, location))
  const finding = loosens.find((f) => places.some((place) => place === undefined || within(place, f.pointer)))
  // the deepest keyword says most
  const where = places.reduce<string | undefined>((deepest, place) => place !== undefined && place.length > (deepest?.length ?? -1) ? place : deepest, undefined) ?? verdict.locations[0] ?? ''
  return { why: `s refuses it at ${where === '' ? '(form)' : where}`, admitted: false, ...(finding === undefined ? {} : { finding: shown(finding) }) }
}

const shown = (f: Finding): NonNullable<Refusal['finding']> => ({ rule: f.rule, pointer: f.pointer, message: f.message })

/**
 * The acts, written by the decoder: check 5.2-decoder (every body it writes is acted on when s
 * admits it and refused when not), 5.3-success of those taken; and the actor's tally.
 */
export async function actor (client: Client, results: Results, form: object, judge: Judge, refusals: Answer[], gate: Gate, options: ActorOptions): Promise<ActorReport> {
  const { decoder } = options
  const base = { decoder, version: options.version, profile: options.profile }
  const walked = await write(form, options)
  results.skip('5.2-admitted', `the acts came from the ${decoder} actor: see 5.2-decoder`)
  results.skip('6-actor', `the ${decoder} actor sends no GPT-Actor`)
  if ('error' in walked) {
    results.skip('5.2-decoder', `${decoder} wrote no body: ${walked.error}`)
    results.skip('5.3-success', 'no act was taken')
    return { ...base, refusedForm: walked.error, written: 0, dropped: 0, accepted: 0, refused: 0, unanswered: 0, gated: 0, refusals: [] }
  }
  const findings = judge.findings([decoder]) ?? []
  const tally = { accepted: 0, refused: 0, unanswered: 0, gated: 0 }
  let shutOut: Answer | undefined
  const list: Refusal[] = []
  const wrong: Answer[] = []
  const faults: string[] = []
  const taken: Answer[] = []
  for (const text of walked.texts) {
    const answer = await client.exchange({ method: 'POST', headers: JSON_TYPE, body: bytes(text) })
    if (answer.response === undefined && held(answer)) {
      tally.unanswered++
      continue
    }
    if (gate.saw(answer)) {
      tally.gated++
      shutOut ??= answer
      continue
    }
    const { admitted, formatted, ...why } = refusal(text, form, judge, findings)
    const took = answer.response !== undefined && acted(answer.response)
    if (took) {
      tally.accepted++
      taken.push(answer)
    } else tally.refused++
    if (!took) list.push({ body: printable(bytes(text)), ...why })
    if (!took && answer.response !== undefined) refusals.push(answer)
    // no verdict is no fault of the address, nor a stricter reading of a format
    if (took !== admitted && !why.why.startsWith('no verdict') && !(formatted === true && !took)) {
      wrong.push(answer)
      faults.push(took ? `acted on a body it must refuse (${why.why})` : `refused a value s admits (${answer.response === undefined ? answer.unanswered as string : `answered ${answer.response.status}`})`)
    }
  }
  if (tally.unanswered > 0) results.limits.push(`${tally.unanswered} of the decoder's bodies were not sent: ${client.stopped ?? 'held back'}`)
  if (wrong.length > 0) results.fail('5.2-decoder', `${faults[0] as string}${wrong.length > 1 ? ` (${wrong.length} such bodies)` : ''}`, wrong)
  else if (tally.accepted + tally.refused === 0 && shutOut !== undefined) results.gate('5.2-decoder', shut(shutOut))
  else if (tally.accepted + tally.refused === 0) results.skip('5.2-decoder', walked.texts.length === 0 ? `${decoder} wrote no body (every walk ran too long)` : 'no body of the decoder was answered')
  else results.pass('5.2-decoder')
  const malformed = taken.filter(({ response }) => response?.status !== 200 || !isJsonResponse(response as Response))
  if (taken.length === 0 && tally.refused === 0 && shutOut !== undefined) results.gate('5.3-success', shut(shutOut))
  else if (taken.length === 0) results.skip('5.3-success', 'no act was taken')
  else if (malformed.length === 0) results.pass('5.3-success')
  else results.fail('5.3-success', 'an act was not answered 200 with a JSON body and Content-Type application/json', malformed)
  return { ...base, written: walked.texts.length, dropped: walked.dropped, ...(walked.gaveUp === undefined ? {} : { gaveUp: walked.gaveUp }), ...tally, refusals: list }
}

/** The decoder's bodies, from its thread (XGrammar) or its process (llama.cpp), in the time left. */
function write (form: object, options: ActorOptions): Promise<Walked> {
  const task = { form, bodies: options.acts, seed: options.seed, maxTokens: MAX_TOKENS }
  const timeout = Math.max(1, options.deadline - Date.now())
  return options.decoder === 'xgrammar' ? decode(task, timeout) : decodeLlama({ ...task, ...(options.model === undefined ? {} : { model: options.model }) }, timeout)
}
