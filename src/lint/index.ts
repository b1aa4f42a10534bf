// fastify-gpt/lint: who can act on a form, and what it really admits. Runs once per form, before
// any actor arrives; the address itself never imports it. Rules and fixes: docs/forms.md.
import { limits, disagreements } from './address.ts'
import { DEFAULT_BODY_LIMIT, DEFAULT_MAX_DEPTH } from '../defaults.ts'
import { GPT_ERR_FORM_TOO_DEEP } from '../errors.ts'
import { DEFAULT_LIMITS, measureForm } from '../limits.ts'
import { PROFILES, type Context, type Judgement, type Profile } from './decoders.ts'
import { refCycles } from './recursion.ts'
import { walk, type Json } from './schema.ts'
import { surface } from './surface.ts'
import { times } from './times.ts'
import { DECODERS, type DecoderName, type Finding, type LintOptions, type RuntimeVerdict, type Severity } from './types.ts'
import { vocabulary } from './vocabulary.ts'

export { DECODERS, type DecoderName, type Finding, type LintOptions, type Severity }
export type { Verdict } from './decoders.ts'

const ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 }

/** Findings about a form (a JSON Schema 2020-12 value, as published in `s`), errors first. */
export function lint (form: unknown, options: LintOptions = {}): Finding[] {
  try {
    return findingsOf(form, options)
  } catch (error) {
    // The form's depth is bounded first; what is left to exhaust the stack is a chain of $refs
    // each leading to the next, tens of thousands long.
    if (error instanceof RangeError && /call stack/.test(error.message)) {
      throw new GPT_ERR_FORM_TOO_DEEP(LINTED, 'lint ran out of stack following its $refs: they chain too long to follow')
    }
    throw error
  }
}

const LINTED = 'given to lint()'
/**
 * What lint reads by default: the address's depth, and forms four times the size it serves, so
 * that a form too large to serve is still linted (the address's own review passes its limits).
 */
export const LINT_LIMITS = Object.freeze({ formBytes: 4 * DEFAULT_LIMITS.formBytes, formDepth: DEFAULT_LIMITS.formDepth })

function findingsOf (form: unknown, options: LintOptions): Finding[] {
  const decoders = options.decoders ?? DECODERS
  for (const name of decoders) if (!DECODERS.includes(name)) throw new TypeError(`unknown decoder "${name}" (one of ${DECODERS.join(', ')})`)
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH
  // Its walks recurse through the form: its depth and size are bounded first, in one iterative
  // pass, as registration bounds them (src/limits.ts); the rest of lint then costs at most the
  // form's size, whatever numbers it holds.
  measureForm(form, LINTED, { ...LINT_LIMITS, ...options.limits })
  const schema = form as Json
  const findings: Finding[] = []

  const { cycles, cyclic } = refCycles(schema)
  for (const cycle of cycles) {
    findings.push({
      rule: 'recursion-unbounded',
      severity: 'warning',
      pointer: cycle.pointer,
      message: `Recursion without a bound: ${cycle.length > cycle.refs.length ? `… (${cycle.length} $refs) → ` : ''}${cycle.refs.join(' → ')} comes back where it started, so nesting depth is left to each actor. Unroll it to a fixed depth (draft §4.2).`,
      section: '4.2',
      decoders: []
    })
  }
  const context: Context = { form: schema, cyclic }
  const profiles = PROFILES.filter((profile) => decoders.includes(profile.name))
  type Votes = Map<Judgement['verdict'], Array<{ profile: Profile, why: string, keyword: string }>>
  const judged = new Map<string, Votes>()
  // What each list already holds, looked up at once: a parent's keyword may be judged once per
  // member (openai-strict's "required", for each of thousands of properties).
  const held = new Set<string>()
  const record = (pointer: string, profile: Profile, judgements: Judgement[]): void => {
    for (const { keyword, verdict, why } of judgements) {
      const at = keyword === '' ? pointer : `${pointer}/${keyword}`
      const verdicts: Votes = judged.get(at) ?? new Map()
      judged.set(at, verdicts)
      const list = verdicts.get(verdict) ?? []
      verdicts.set(verdict, list)
      const key = JSON.stringify([at, verdict, profile.name, why])
      if (!held.has(key)) {
        held.add(key)
        list.push({ profile, why, keyword })
      }
    }
  }

  walk(schema, (node, place) => {
    findings.push(...surface(schema, node, place), ...vocabulary(schema, node, place), ...disagreements(schema, node, place), ...times(node, place))
    for (const profile of profiles) record(place.pointer, profile, profile.judge(node, place, context))
  })
  for (const profile of profiles) record('', profile, profile.limits?.(schema) ?? [])
  findings.push(...limits(schema, bodyLimit, maxDepth))

  const named = options.decoders !== undefined
  for (const [pointer, verdicts] of judged) {
    for (const [verdict, list] of verdicts) {
      const what = list[0]?.keyword ?? ''
      findings.push({
        rule: `decoder-${verdict === 'refused' ? 'refuses' : verdict === 'loosened' ? 'loosens' : 'tightens'}`,
        severity: verdict === 'refused' ? (named ? 'error' : 'warning') : verdict === 'loosened' ? 'warning' : 'info',
        pointer,
        message: `${MEANING[verdict]}${what === '' ? '' : ` ("${what}")`}: ${list.map(({ profile, why }) => `${profile.name}: ${why}`).join('; ')}.`,
        decoders: [...new Set(list.map(({ profile }) => profile.name))]
      })
    }
  }
  // The decoders that drop a keyword outside the draft's vocabulary are the ones it concerns.
  const concerned = (pointer: string): DecoderName[] => [...new Set([...(judged.get(pointer) ?? new Map() as Votes).entries()]
    .filter(([verdict]) => verdict !== 'tightened').flatMap(([, list]) => list.map(({ profile }) => profile.name)))]
  return findings
    .map((finding) => finding.rule === 'outside-vocabulary' ? { ...finding, decoders: concerned(finding.pointer) } : finding)
    .sort((a, b) => ORDER[a.severity] - ORDER[b.severity] || (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0))
}

const MEANING: Record<Judgement['verdict'], string> = {
  refused: 'Refused by the runtime, so an actor using it cannot act',
  loosened: 'Not enforced while decoding, so an actor may produce bodies the address refuses',
  tightened: 'Produced more narrowly than the form admits (no body is refused for it)'
}

/** Each decoder profile: its name, the runtimes that use it, and the converter and version it describes. */
export function decoderProfiles (): Array<{ readonly decoder: DecoderName, readonly runtimes: string, readonly version: string }> {
  return PROFILES.map(({ name, runtimes, version }) => ({ decoder: name, runtimes, version }))
}

/** Which decoder profiles can act on the address: refused, loosened or exact, from lint's findings. */
export function runtimeVerdicts (findings: readonly Finding[]): RuntimeVerdict[] {
  const says = (rule: string, decoder: DecoderName): boolean => findings.some((f) => f.rule === rule && f.decoders.includes(decoder))
  return PROFILES.map(({ name, runtimes }) => ({
    decoder: name,
    runtimes,
    verdict: says('decoder-refuses', name) ? 'refused' : says('decoder-loosens', name) ? 'loosened' : 'exact'
  }))
}
