// Keeps one process.nextTick object alive for the life of the process: an opt-in remedy a host
// calls once at start (docs/benchmarks.md, "A process-wide cost"); importing the package installs
// nothing.
//
// Node 20 builds each tick object with an object literal whose first keys are computed
// ({ [async_id_symbol], [trigger_async_id_symbol], callback, args }). V8 keeps no polymorphic
// feedback for such keys: one store that meets another map marks the site megamorphic for good.
// The maps of tick objects are held weakly, so a full collection that finds no tick object alive
// (one that finishes while a host serves its first requests, say, after a registration that
// allocated a few megabytes) clears them; the next tick records new maps, the feedback turns
// megamorphic, and from then on every nextTick, several per request, takes V8's runtime path:
// 15 to 20 % of the CPU of a small route, on every route of the host. One tick object kept
// alive keeps those maps alive.
import { createHook } from 'node:async_hooks'

let kept: object | undefined

/**
 * Keeps one `process.nextTick` object alive, so that V8 keeps nextTick on its fast path on Node 20
 * (15 to 20 % of a small route's CPU in a host that would otherwise lose it). Call it once, before
 * registering; later calls do nothing.
 */
export function keepTickObject (): void {
  if (kept !== undefined) return
  const hook = createHook({
    init (_id, type, _trigger, resource) {
      if (type === 'TickObject') kept ??= resource as object
    }
  })
  hook.enable()
  try {
    process.nextTick(noop)
  } finally {
    hook.disable()
  }
}

/** The tick object kept, if any: for tests. */
export const keptTickObject = (): object | undefined => kept

function noop (): void {}
