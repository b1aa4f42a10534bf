/**
 * Whether `await` would adopt a value as a thenable: it has a callable `then`. Reads `then` once,
 * and a getter that throws throws here, so the caller can tell it from a rejection.
 */
export function isThenable (value: unknown): boolean {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false
  return typeof (value as { then?: unknown }).then === 'function'
}

/** What `within` settles with once its time is up. */
export const LATE: unique symbol = Symbol('late')

/**
 * `settled`, or `LATE` once `ms` have passed, whichever comes first; the other is dropped. The
 * timer goes as soon as `settled` settles, so nothing is left armed behind a quick answer.
 */
export function within<T> (settled: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<typeof LATE>((resolve) => { timer = setTimeout(resolve, ms, LATE) })
  const done = (): void => { clearTimeout(timer) }
  settled.then(done, done)
  return Promise.race([settled, late])
}

/** The values an act hands off with instead of a result (a job's handle): never judged by the result form. */
const handOffs = new WeakSet<object>()

/** Marks `value` as an act's hand-off, not its result. */
export function handOff<T extends object> (value: T): T {
  handOffs.add(value)
  return value
}

export const isHandOff = (value: unknown): boolean => typeof value === 'object' && value !== null && handOffs.has(value)
