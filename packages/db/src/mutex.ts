import { AsyncLocalStorage } from 'node:async_hooks'

export interface MutexOptions {
  /**
   * Throw when a holder asks for the lock again — code inside a transaction calling the database
   * instead of the transaction handle — instead of waiting forever. It needs AsyncLocalStorage,
   * which on Node 20 hooks every promise of the process (the BFF then serves ~30 % fewer
   * requests), so it is a test-time check: the test database helpers turn it on.
   */
  detectNestedUse?: boolean
}

/**
 * A FIFO async mutex. PGlite is one Postgres session, so everything that must not interleave
 * (a transaction, a Kysely connection lease) holds this lock.
 */
export class Mutex {
  #tail: Promise<void> = Promise.resolve()
  // A hold is marked released when `run` ends, so work started inside it that outlives it (a
  // fire-and-forget promise) is not mistaken for a nested holder.
  readonly #holder: AsyncLocalStorage<{ held: boolean }> | undefined

  constructor(options: MutexOptions = {}) {
    this.#holder = options.detectNestedUse === true ? new AsyncLocalStorage() : undefined
  }

  /** Whether nested use is detected (`MutexOptions.detectNestedUse`). */
  get detectsNestedUse(): boolean {
    return this.#holder !== undefined
  }

  /** True while the current async context holds this lock (always false without detection). */
  get heldHere(): boolean {
    return this.#holder?.getStore()?.held === true
  }

  /** Waits for the lock and returns its release function (call it exactly once). */
  async acquire(): Promise<() => void> {
    if (this.heldHere) {
      throw new Error(
        'The database is already in use by this call chain (inside a transaction or connection lease); ' +
          'use the transaction handle instead of the database, or this would wait forever.',
      )
    }
    let release!: () => void
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    const previous = this.#tail
    this.#tail = previous.then(() => released)
    await previous
    let done = false
    return () => {
      if (done) return
      done = true
      release()
    }
  }

  /** Runs `fn` holding the lock; with detection, nested use from inside `fn` throws. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire()
    if (this.#holder === undefined) {
      try {
        return await fn()
      } finally {
        release()
      }
    }
    const hold = { held: true }
    try {
      return await this.#holder.run(hold, fn)
    } finally {
      hold.held = false
      release()
    }
  }
}
