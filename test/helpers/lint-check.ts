// A decoder profile of lint against that decoder's own converter (XGrammar's through
// @mlc-ai/web-xgrammar, llama.cpp's through @fugood/llama.node): where lint says the converter
// refuses a form, it fails; where lint says a keyword is loosened, a body the grammar accepts and
// the address refuses is found; where lint says the form is enforced exactly, no near-miss body is
// accepted by the grammar and refused by the address. The address decides with its own compiler
// and parser (src/form/compile.ts, src/parse/parse.ts), independently of lint.
import { compileForm, freezeJson, type Json } from '../../src/form/compile.ts'
import { lint, type DecoderName, type Finding } from '../../src/lint/index.ts'
import { parse } from '../../src/parse/parse.ts'
import { bodyText, nearMisses, type Near } from './near-miss.ts'
import { isObject, resolve } from '../../src/lint/schema.ts'
import { unescape } from '../../src/json/pointer.ts'

/** A decoder's converter, as the tests drive it (test/helpers/xgrammar.ts, llama-cpp.ts). */
export interface Converter<G = unknown> {
  readonly decoder: DecoderName
  /** Near-miss bodies tried on each form. */
  readonly nearMisses: number
  /** Bodies asked about at once. */
  readonly batch: number
  /** Whether it writes an object's required members first (else in `properties` order). */
  readonly requiredFirst?: boolean
  compile: (schema: Json) => Promise<{ grammar: G } | { error: unknown }>
  /** For each text, whether the grammar accepts it whole. */
  accepts: (grammar: G, texts: readonly string[]) => Promise<boolean[]>
  release: (grammar: G) => void
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

/**
 * Whether a body is accepted by the grammar and refused by the address; the grammar is asked
 * about `c.batch` bodies at a time, the one wanted and the next of `variants` the address refuses.
 */
function slipper<G> (c: Converter<G>, grammar: G, rejects: (text: string) => boolean, variants: readonly Near[]): Slips {
  const refused = [...new Set(variants.map((v) => bodyText(v.value)))].filter(rejects)
  const accepted = new Map<string, boolean>()
  return async (value) => {
    const text = bodyText(value)
    if (!rejects(text)) return false
    if (!accepted.has(text)) {
      const asked = [text, ...refused.slice(Math.max(0, refused.indexOf(text) + 1)).filter((t) => t !== text && !accepted.has(t)).slice(0, c.batch - 1)]
      const verdicts = await c.accepts(grammar, asked)
      asked.forEach((t, i) => accepted.set(t, verdicts[i] === true))
    }
    return accepted.get(text) === true
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
async function showsAlone<G> (c: Converter<G>, form: Json, node: string, keyword: string): Promise<boolean> {
  const schema = resolve(form, node)
  if (node === '' || !isObject(schema) || !isObject(form)) return false
  const alone: Json = { ...schema, ...(form['$defs'] === undefined ? {} : { $defs: form['$defs'] }) }
  let validate
  try {
    validate = compileForm(freezeJson(alone, 'alone'), 'alone')
  } catch {
    return false
  }
  const compiled = await c.compile(alone)
  if ('error' in compiled) return false
  try {
    const variants = nearMisses(alone, c.nearMisses, { wire: true, requiredFirst: c.requiredFirst === true })
    const slips = slipper(c, compiled.grammar, refuses(validate), variants)
    return await shows(variants, '', keyword, slips) || (keyword !== '' && await showsByRemoval(alone, `/${keyword}`, variants, slips))
  } finally {
    c.release(compiled.grammar)
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

/** Checks lint's judgements for the converter's decoder on one form against the converter; adds to the tally. */
export async function check<G> (c: Converter<G>, form: Json, t: Tally, label: string, extra: readonly Json[] = []): Promise<void> {
  let validate
  try {
    validate = compileForm(freezeJson(form, label), label)
  } catch {
    return // a form the address refuses is no form anyone acts on
  }
  t.forms++
  const findings = lint(form, { decoders: [c.decoder] })
  const refusedByLint = findings.some((f) => f.rule === 'decoder-refuses')
  const compiled = await c.compile(form)
  const failed = 'error' in compiled
  if (refusedByLint === failed) t.refusedAgreed++
  else t.refusedDisagreed.push(`${label}: lint ${refusedByLint ? 'refuses' : 'compiles'}, converter ${failed ? `fails (${String(compiled.error)})` : 'compiles'} ${JSON.stringify(form)}`)
  // a form that admits nothing has no body to miss by a little
  if (failed || refusedByLint || findings.some((f) => f.rule === 'form-admits-nothing')) return
  try {
    await judge(c, form, findings, compiled.grammar, validate, t, label, extra)
  } finally {
    c.release(compiled.grammar)
  }
}

async function judge<G> (c: Converter<G>, form: Json, findings: Finding[], grammar: G, validate: (value: unknown) => boolean, t: Tally, label: string,
  extra: readonly Json[]): Promise<void> {
  const variants = [...nearMisses(form, c.nearMisses, { wire: true, requiredFirst: c.requiredFirst === true }), ...extra.map((value) => ({ at: '', keyword: '', value }))]
  const slips = slipper(c, grammar, refuses(validate), variants)
  const loosened = findings.filter((f) => f.rule === 'decoder-loosens')
  for (const claim of loosened) {
    const keyword = claim.pointer.split('/').at(-1) ?? ''
    const node = claim.pointer.slice(0, -keyword.length - 1)
    // A claim about a whole schema (what its string or number rule writes) is tried on that schema alone too.
    const whole = claim.message.startsWith(MEANING_LOOSENED) && !claim.message.startsWith(`${MEANING_LOOSENED} ("`)
    if (await shows(variants, node, keyword, slips)) t.loosenedShown++
    else if (await showsAlone(c, form, node, keyword) || (whole && await showsAlone(c, form, claim.pointer, ''))) t.loosenedShownAlone++
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
