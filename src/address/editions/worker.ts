// The judge's thread (src/address/editions/judge.ts): builds an edition read from Redis exactly as the
// address would, and says whether it was refused. Nothing built here is kept: only the verdict
// crosses back, and the thread can be stopped at any point of a build.
import { parentPort } from 'node:worker_threads'
import type { FastifyBaseLogger } from 'fastify'
import { Address } from '../address.ts'
import type { JudgeJob, JudgeVerdict } from './judge.ts'
import { resolveContent, type ResolvedOptions } from '../options.ts'
import { reviewed } from '../review.ts'

const noop = (): void => {}
const silent = { level: 'silent', fatal: noop, error: noop, warn: noop, info: noop, debug: noop, trace: noop, silent: noop, child: () => silent } as unknown as FastifyBaseLogger

function judge ({ id, settings, text, version }: JudgeJob): JudgeVerdict {
  try {
    const full = { ...settings, content: resolveContent({ form: {} }, undefined, settings.path, settings.limits), act: noop, rateLimit: false, onAddress: undefined, share: undefined, links: undefined, background: undefined, idempotency: undefined } as ResolvedOptions
    // maxDepth as the address resolved it: given, so not raised again. Its page too, which the
    // address renders when first asked for it: what it costs is the form's.
    const { arrival } = new Address({ ...full, ...reviewed(full, true, silent), background: undefined, idempotency: undefined }).read(text, version)
    if (settings.html && arrival.html === undefined) throw new Error('no page was rendered') // never: the page is asked for here
    return { id, ok: true }
  } catch (error) {
    const { code, message } = error as { code?: unknown, message?: unknown }
    return { id, ok: false, code: typeof code === 'string' ? code : undefined, message: String(message ?? error) }
  }
}

parentPort?.on('message', (job: JudgeJob) => { parentPort?.postMessage(judge(job)) })
parentPort?.postMessage({ id: 0, ok: true }) // loaded: the judge's clock starts with the first job
