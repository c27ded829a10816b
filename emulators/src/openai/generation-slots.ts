/**
 * A model server's capacity: at most `max` answers generate at once, the others wait their turn
 * (first come, first served) with their response open, as a saturated vLLM or Ollama queues
 * them. Off by default; the assistant benchmark turns it on to saturate the stand-in.
 */
export class GenerationSlots {
  #busy = 0
  readonly #waiting: Array<() => void> = []

  constructor(readonly max: number) {}

  /** Resolves with the slot's release once one is free, or with a no-op when `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<() => void> {
    const noop = () => {}
    if (signal.aborted) return Promise.resolve(noop)
    if (this.#busy < this.max) return Promise.resolve(this.#take())
    return new Promise((resolve) => {
      const grant = () => {
        signal.removeEventListener('abort', onAbort)
        resolve(this.#take())
      }
      const onAbort = () => {
        const at = this.#waiting.indexOf(grant)
        if (at >= 0) this.#waiting.splice(at, 1)
        resolve(noop)
      }
      this.#waiting.push(grant)
      signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** Answers generating and waiting now. */
  counts(): { busy: number; waiting: number } {
    return { busy: this.#busy, waiting: this.#waiting.length }
  }

  #take(): () => void {
    this.#busy += 1
    let held = true
    return () => {
      if (!held) return
      held = false
      this.#busy -= 1
      this.#waiting.shift()?.()
    }
  }
}

/** `frames`, started once a slot is free and holding it until they end. */
export async function* inSlot<T>(
  slots: GenerationSlots,
  signal: AbortSignal,
  frames: AsyncGenerator<T>,
): AsyncGenerator<T> {
  const release = await slots.acquire(signal)
  try {
    if (!signal.aborted) yield* frames
  } finally {
    release()
  }
}
