// What each constrained decoder does with each keyword of a form, in its context: one profile a
// file under decoders/. Sources, versions, dates and what was checked against the real
// converters: docs/forms.md.
import type { Profile } from './decoders/profile.ts'
import { anthropic } from './decoders/anthropic.ts'
import { gemini } from './decoders/gemini.ts'
import { llamaCpp } from './decoders/llama-cpp.ts'
import { llguidance } from './decoders/llguidance.ts'
import { openai } from './decoders/openai.ts'
import { outlines } from './decoders/outlines.ts'
import { xgrammar } from './decoders/xgrammar.ts'

export { ARRAY, ASSERTIONS, NUMBER, OBJECT, STRING } from './decoders/common.ts'

export type { Context, Judgement, Profile, Verdict } from './decoders/profile.ts'

export const PROFILES: readonly Profile[] = [openai, anthropic, gemini, llamaCpp, xgrammar, outlines, llguidance]
