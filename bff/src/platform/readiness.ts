/**
 * Whether this BFF process should be sent traffic: what `GET /api/health/ready` reports to the load
 * balancer. Each part of the BFF that must work before a request can succeed (the database, its
 * migrations, the live-event listener) registers a named check; draining fails them all at once.
 */
export type ReadinessCheck = () => Promise<void>

export interface CheckResult {
  ok: boolean
  /** How long the check took (ms). */
  ms: number
  /** Why it failed, in a sentence; absent when ok. */
  error?: string
}

export interface ReadinessReport {
  ok: boolean
  draining: boolean
  checks: Record<string, CheckResult>
}

export interface Readiness {
  /**
   * Adds a check under a name (replacing one of the same name); it resolves when that part is
   * ready and throws, saying why, when not. Returns the function that removes it.
   */
  register(name: string, check: ReadinessCheck): () => void
  /** Fails readiness from now on (shutdown): the load balancer stops sending new requests. */
  drain(): void
  readonly draining: boolean
  /** Runs every check at once, each bounded by the timeout. */
  check(): Promise<ReadinessReport>
}

/** Thrown by a check that names its own reason (shown to the operator as is). */
export class NotReadyError extends Error {
  override readonly name = 'NotReadyError'
}

export function createReadiness(options: { timeoutMs?: number } = {}): Readiness {
  const timeoutMs = options.timeoutMs ?? 2000
  const checks = new Map<string, ReadinessCheck>()
  let draining = false

  const run = async (check: ReadinessCheck): Promise<CheckResult> => {
    const started = performance.now()
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new NotReadyError(`no answer within ${timeoutMs} ms`)),
        timeoutMs,
      )
    })
    try {
      await Promise.race([check(), timeout])
      return { ok: true, ms: Math.round(performance.now() - started) }
    } catch (error) {
      return {
        ok: false,
        ms: Math.round(performance.now() - started),
        error: error instanceof Error ? error.message : String(error),
      }
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    register(name, check) {
      checks.set(name, check)
      return () => {
        if (checks.get(name) === check) checks.delete(name)
      }
    },
    drain() {
      draining = true
    },
    get draining() {
      return draining
    },
    async check() {
      if (draining) {
        // No point asking the database: this process is going away whatever it says.
        return {
          ok: false,
          draining: true,
          checks: { draining: { ok: false, ms: 0, error: 'the BFF is shutting down' } },
        }
      }
      const names = [...checks.keys()]
      const results = await Promise.all([...checks.values()].map(run))
      const report: Record<string, CheckResult> = {}
      names.forEach((name, index) => (report[name] = results[index]!))
      return { ok: results.every((result) => result.ok), draining: false, checks: report }
    },
  }
}
