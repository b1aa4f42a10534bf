// lint's xgrammar profile against XGrammar's own converter (@mlc-ai/web-xgrammar): where lint says
// the converter refuses a form, it fails; where lint says a keyword is loosened, a body the grammar
// accepts and the address refuses is found; where lint says the form is enforced exactly, no
// near-miss body is accepted by the grammar and refused by the address. The address decides with
// its own compiler and parser (src/form/compile.ts, src/parse/parse.ts), independently of lint.
import { compileForm, freezeJson, type Json } from '../../src/form/compile.ts'
import { lint, type Finding } from '../../src/lint/index.ts'
import { parse } from '../../src/parse/parse.ts'
import { bodyText, nearMisses, type Near } from './near-miss.ts'
import { isObject, resolve } from '../../src/lint/schema.ts'
import * as converter from './xgrammar.ts'
import { unescape } from '../../src/json/pointer.ts'

interface Grammar { readonly grammar?: unknown, readonly error?: unknown }
const xgrammar = converter as unknown as {
  compile: (schema: Json) => Promise<Grammar>
  accepts: (grammar: unknown, text: string) => Promise<boolean>
  release: (grammar: unknown) => void
}

/** Whether the address refuses a body: its strict parser, then its validator. */
const refuses = (validate: (value: unknown) => boolean) => (text: string): boolean => {
  try {
    return !validate(parse(Buffer.from(text)))
  } catch {
    return true
  }
}

// A finding's message names the keyword it is about after this opening, or none when it is about the whole schema.
const MEANING_LOOSENED = 'Not enforced while decoding, so an actor may produce bodies the address refuses'

// Findings that say the address refuses values the form admits, whatever the decoder.
const ADDRESS = new Set(['integer-unsafe', 'proto-member'])

export interface Tally {
  forms: number
  refusedAgreed: number
  refusedDisagreed: string[]
  /** Loosened keywords shown by a whole body. */
  loosenedShown: number
  /** Loosened keywords masked in the whole form (another alternative admits the body) and shown in their own schema. */
  loosenedShownAlone: number
  /** Loosened keywords shown by a body that slips (aimed elsewhere) and that the address accepts once the keyword is taken out. */
  loosenedShownByRemoval: number
  loosenedUnshown: string[]
  /** oneOf alternatives lint could not prove disjoint, where no value matching two was found. */
  oneOfUndecided: number
  exact: number
  exactBroken: string[]
}
export const tally = (): Tally => ({ forms: 0, refusedAgreed: 0, refusedDisagreed: [], loosenedShown: 0, loosenedShownAlone: 0, loosenedShownByRemoval: 0, loosenedUnshown: [], oneOfUndecided: 0, exact: 0, exactBroken: [] })

type Slips = (value: Json) => Promise<boolean>

/** Whether a body is accepted by the grammar and refused by the address. */
function slipper (grammar: unknown, rejects: (text: string) => boolean): Slips {
  const accepted = new Map<string, boolean>()
  return async (value) => {
    const text = bodyText(value)
    if (!accepted.has(text)) accepted.set(text, await xgrammar.accepts(grammar, text))
    return accepted.get(text) === true && rejects(text)
  }
}

/** Whether a near-miss aimed at the keyword (or inside it) slips through. */
async function shows (variants: Near[], node: string, keyword: string, slips: Slips): Promise<boolean> {
  const pointer = `${node}/${keyword}`
  for (const v of variants) {
    if (((v.at === node && v.keyword === keyword) || v.at === pointer || v.at.startsWith(`${pointer}/`)) && await slips(v.value)) return true
  }
  return false
}

/** The same, for the schema the keyword stands in taken as a form of its own (with the form's $defs). */
async function showsAlone (form: Json, node: string, keyword: string): Promise<boolean> {
  const schema = resolve(form, node)
  if (node === '' || !isObject(schema) || !isObject(form)) return false
  const alone: Json = { ...schema, ...(form['$defs'] === undefined ? {} : { $defs: form['$defs'] }) }
  let validate
  try {
    validate = compileForm(freezeJson(alone, 'alone'), 'alone')
  } catch {
    return false
  }
  const compiled = await xgrammar.compile(alone)
  if (compiled.error !== undefined) return false
  try {
    return await shows(nearMisses(alone, 1500, { wire: true }), '', keyword, slipper(compiled.grammar, refuses(validate)))
  } finally {
    xgrammar.release(compiled.grammar)
  }
}

/**
 * Whether some body that slips through would be accepted by the address were the keyword not in
 * the form: then the keyword is what refuses it, and the decoder does not enforce it.
 */
async function showsByRemoval (form: Json, pointer: string, variants: Near[], slips: Slips): Promise<boolean> {
  const without = structuredClone(form)
  const keyword = pointer.split('/').at(-1) ?? ''
  const node = resolve(without, pointer.slice(0, -keyword.length - 1))
  if (!isObject(node)) return false
  delete (node as Record<string, Json>)[unescape(keyword)]
  let validate
  try {
    validate = compileForm(freezeJson(without, 'without'), 'without')
  } catch {
    return false
  }
  const accepted = refuses(validate)
  for (const v of variants) if (await slips(v.value) && !accepted(bodyText(v.value))) return true
  return false
}

/** Checks lint's xgrammar judgements on one form against the converter; adds to the tally. */
export async function check (form: Json, t: Tally, label: string, extra: readonly Json[] = []): Promise<void> {
  let validate
  try {
    validate = compileForm(freezeJson(form, label), label)
  } catch {
    return // a form the address refuses is no form anyone acts on
  }
  t.forms++
  const findings = lint(form, { decoders: ['xgrammar'] })
  const refusedByLint = findings.some((f) => f.rule === 'decoder-refuses')
  const compiled = await xgrammar.compile(form)
  if (refusedByLint === (compiled.error !== undefined)) t.refusedAgreed++
  else t.refusedDisagreed.push(`${label}: lint ${refusedByLint ? 'refuses' : 'compiles'}, converter ${compiled.error === undefined ? 'compiles' : 'fails'} ${JSON.stringify(form)}`)
  if (compiled.error !== undefined || refusedByLint) return
  try {
    await judge(form, findings, compiled.grammar, validate, t, label, extra)
  } finally {
    xgrammar.release(compiled.grammar)
  }
}

async function judge (form: Json, findings: Finding[], grammar: unknown, validate: (value: unknown) => boolean, t: Tally, label: string,
  extra: readonly Json[]): Promise<void> {
  const slips = slipper(grammar, refuses(validate))
  const variants = [...nearMisses(form, 1500, { wire: true }), ...extra.map((value) => ({ at: '', keyword: '', value }))]
  const loosened = findings.filter((f) => f.rule === 'decoder-loosens')
  for (const claim of loosened) {
    const keyword = claim.pointer.split('/').at(-1) ?? ''
    const node = claim.pointer.slice(0, -keyword.length - 1)
    // A claim about a whole schema (what its string or number rule writes) is tried on that schema alone too.
    const whole = claim.message.startsWith(MEANING_LOOSENED) && !claim.message.startsWith(`${MEANING_LOOSENED} ("`)
    if (await shows(variants, node, keyword, slips)) t.loosenedShown++
    else if (await showsAlone(form, node, keyword) || (whole && await showsAlone(form, claim.pointer, ''))) t.loosenedShownAlone++
    // Whether oneOf alternatives overlap is left undecided by lint unless cheap: "may overlap".
    else if (await showsByRemoval(form, claim.pointer, variants, slips)) t.loosenedShownByRemoval++
    else if (keyword === 'oneOf') t.oneOfUndecided++
    else t.loosenedUnshown.push(`${label}: ${claim.pointer} ${JSON.stringify(form)}`)
  }
  if (loosened.length === 0 && !findings.some((f) => ADDRESS.has(f.rule))) {
    t.exact++
    for (const v of variants) {
      if (await slips(v.value)) {
        t.exactBroken.push(`${label}: ${JSON.stringify(v.value)} (${v.at} ${v.keyword}) ${JSON.stringify(form)}`)
        break
      }
    }
  }
}
