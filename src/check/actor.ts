import { parse, ParseError } from '../parse.ts'
import type { Finding } from '../lint/index.ts'
import { TEXT_MATCHED } from '../lint/wire.ts'
import { bytes } from './bytes.ts'
import { held, printable, type Answer, type Client } from './client.ts'
import { decode } from './decoder.ts'
import type { Judge } from './judge.ts'
import { acted, isJsonResponse, type Results } from './results.ts'
import type { ActorReport, Refusal, Response } from './types.ts'

// draft §5.2 with a real constrained decoder acting: XGrammar compiles s and writes bodies as a
// model sampling under its grammar would (xgrammar.ts). Each is posted as an act. A body the
// decoder writes is acted on exactly when it is strict JSON that s admits (the independent
// validator decides); each refused body is traced, as far as the checker can tell, to the lint
// finding that foresaw it.

/** Most bodies the actor writes in one run: each is a request and a walk of the grammar. */
export const MAX_ACTOR_ACTS = 1000
/** Tokens a walk may take before it is dropped: a body of a few kilobytes at most. */
const MAX_TOKENS = 800
const JSON_TYPE = { 'content-type': 'application/json' }

export interface ActorOptions {
  readonly acts: number
  readonly seed: number
  /** When the run must end (ms since the epoch): the decoder's thread gets what is left. */
  readonly deadline: number
  /** The converter and its version, and what lint's xgrammar profile describes. */
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

const unescape = (segment: string): string => decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~')

/** The value at a JSON Pointer of the form, or undefined. */
function at (form: unknown, pointer: string): unknown {
  let here = form
  for (const segment of pointer.split('/').slice(1)) {
    if (here === null || typeof here !== 'object') return undefined
    here = (here as Record<string, unknown>)[unescape(segment)]
  }
  return here
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
    const ref = at(form, `${pointer}/$ref`)
    if (typeof ref !== 'string' || !(ref === '#' || ref.startsWith('#/'))) return undefined
    pointer = ref.slice(1)
  }
  return pointer
}

const within = (location: string, pointer: string): boolean => location === pointer || location.startsWith(`${pointer}/`)

/** Why s or the parser refuses a body, and the finding that foresaw it; or that s admits it. */
function refusal (text: string, form: object, judge: Judge, findings: readonly Finding[]): Omit<Refusal, 'body'> & { readonly admitted: boolean } {
  let value: unknown
  try {
    value = parse(bytes(text))
  } catch (error) {
    const reason = error instanceof ParseError ? error.reason : 'syntax'
    const finding = findings.find((f) => FORESEES[reason]?.(f) === true)
    return { why: `not strict JSON (${reason})`, admitted: false, ...(finding === undefined ? {} : { finding: shown(finding) }) }
  }
  const verdict = judge.admits(value)
  if (verdict === undefined) return { why: `no verdict: ${judge.why ?? 'the independent validator gave none'}`, admitted: false }
  if (verdict.valid) return { why: 's admits it', admitted: true }
  const loosens = findings.filter((f) => f.rule === 'decoder-loosens')
  // the keyword that refuses the body, or a schema above it, is one lint says the decoder loosens
  const places = verdict.locations.map((location) => inForm(form, location))
  const finding = loosens.find((f) => places.some((place) => place === undefined || within(place, f.pointer)))
  const where = places.find((place) => place !== undefined) ?? verdict.locations[0] ?? ''
  return { why: `s refuses it at ${where === '' ? '(form)' : where}`, admitted: false, ...(finding === undefined ? {} : { finding: shown(finding) }) }
}

const shown = (f: Finding): NonNullable<Refusal['finding']> => ({ rule: f.rule, pointer: f.pointer, message: f.message })

/**
 * The acts, written by the decoder: check 5.2-decoder (every body it writes is acted on when s
 * admits it and refused when not), 5.3-success of those taken; and the actor's tally.
 */
export async function actor (client: Client, results: Results, form: object, judge: Judge, refusals: Answer[], options: ActorOptions): Promise<ActorReport> {
  const base = { decoder: 'xgrammar' as const, version: options.version, profile: options.profile }
  const walked = await decode({ form, bodies: options.acts, seed: options.seed, maxTokens: MAX_TOKENS }, Math.max(1, options.deadline - Date.now()))
  results.skip('5.2-admitted', 'the acts came from the xgrammar actor: see 5.2-decoder')
  results.skip('6-actor', 'the xgrammar actor sends no GPT-Actor')
  if ('error' in walked) {
    results.skip('5.2-decoder', `xgrammar wrote no body: ${walked.error}`)
    results.skip('5.3-success', 'no act was taken')
    return { ...base, refusedForm: walked.error, written: 0, dropped: 0, accepted: 0, refused: 0, unanswered: 0, refusals: [] }
  }
  const findings = judge.findings(['xgrammar']) ?? []
  const tally = { accepted: 0, refused: 0, unanswered: 0 }
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
    const { admitted, ...why } = refusal(text, form, judge, findings)
    const took = answer.response !== undefined && acted(answer.response)
    if (took) {
      tally.accepted++
      taken.push(answer)
    } else tally.refused++
    if (!took) list.push({ body: printable(bytes(text)), ...why })
    if (!took && answer.response !== undefined) refusals.push(answer)
    // no verdict is no fault of the address
    if (took !== admitted && !why.why.startsWith('no verdict')) {
      wrong.push(answer)
      faults.push(took ? `acted on a body it must refuse (${why.why})` : `refused a value s admits (${answer.response === undefined ? answer.unanswered as string : `answered ${answer.response.status}`})`)
    }
  }
  if (tally.unanswered > 0) results.limits.push(`${tally.unanswered} of the decoder's bodies were not sent: ${client.stopped ?? 'held back'}`)
  if (wrong.length > 0) results.fail('5.2-decoder', `${faults[0] as string}${wrong.length > 1 ? ` (${wrong.length} such bodies)` : ''}`, wrong)
  else if (tally.accepted + tally.refused === 0) results.skip('5.2-decoder', walked.texts.length === 0 ? 'xgrammar wrote no body (every walk ran too long)' : 'no body of the decoder was answered')
  else results.pass('5.2-decoder')
  const malformed = taken.filter(({ response }) => response?.status !== 200 || !isJsonResponse(response as Response))
  if (taken.length === 0) results.skip('5.3-success', 'no act was taken')
  else if (malformed.length === 0) results.pass('5.3-success')
  else results.fail('5.3-success', 'an act was not answered 200 with a JSON body and Content-Type application/json', malformed)
  return { ...base, written: walked.texts.length, dropped: walked.dropped, ...tally, refusals: list }
}
