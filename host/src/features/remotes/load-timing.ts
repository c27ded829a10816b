import { remoteLoadReportSchema, type RemoteLoadTiming } from '@tessera/contracts'
import { browserTimers, warnToConsole, type Timers } from '../../lib/runtime.ts'

/** One remote shown in the page: what the outlet measured, before it is checked and sent. */
export interface MeasuredLoad {
  remote: string
  version: string
  target: RemoteLoadTiming['target']
  entryUrl: string
  /** When the loader started fetching the entry (`performance.now()`). */
  startedAt: number
  entryMs: number
  exposeMs: number
  mountMs: number
  /** When the content was painted (`performance.now()`, so also ms since navigation start). */
  readyAt: number
}

export interface LoadTimingReporterOptions {
  send(report: { loads: RemoteLoadTiming[] }): Promise<void>
  /** When the browser started fetching this URL (Resource Timing), or null if it did not yet. */
  fetchStartOf?: (url: string) => number | null
  timers?: Timers
  /** Loads are gathered this long after the last one, then sent in one report. */
  delayMs?: number
  warn?: (message: string, detail?: unknown) => void
}

export interface LoadTimingReporter {
  /**
   * Records a remote's first load in this page; later loads of the same remote are ignored, but
   * for its page: a route shown after the remote's own header slot (the slots may go first when
   * the page is slow) takes the slot's place while the report is not sent yet.
   */
  record(load: MeasuredLoad): void
  /** Sends what is gathered now (the page is being hidden or left). */
  flush(): void
}

function browserFetchStart(url: string): number | null {
  const [entry] = performance.getEntriesByName(url, 'resource')
  return entry === undefined ? null : entry.startTime
}

const round = (ms: number): number => Math.max(0, Math.round(ms))

/**
 * Reports how long each remote took to show, once per remote per page (entry, exposed module,
 * mount, and the wait since navigation), batched into one `POST /api/telemetry/remote-loads`. A
 * remote counts as preloaded when the browser had started fetching its entry before the loader
 * asked for it: the page's hints or a prefetch on intent did their work.
 */
export function createLoadTimingReporter({
  send,
  fetchStartOf = browserFetchStart,
  timers = browserTimers,
  delayMs = 2000,
  warn = warnToConsole,
}: LoadTimingReporterOptions): LoadTimingReporter {
  const seen = new Set<string>()
  let pending: RemoteLoadTiming[] = []
  let timer: unknown = null

  function flush(): void {
    if (timer !== null) timers.clearTimeout(timer)
    timer = null
    if (pending.length === 0) return
    const parsed = remoteLoadReportSchema.safeParse({ loads: pending })
    pending = []
    if (!parsed.success) {
      warn('Remote load timings could not be reported', parsed.error.issues)
      return
    }
    send(parsed.data).catch((error: unknown) =>
      warn('Remote load timings could not be reported', error),
    )
  }

  return {
    record(load) {
      const slotFirst = pending.findIndex(
        (entry) => entry.remote === load.remote && entry.target === 'slot',
      )
      const replacesSlot = load.target === 'route' && slotFirst !== -1
      if (seen.has(load.remote) && !replacesSlot) return
      seen.add(load.remote)
      if (replacesSlot) pending.splice(slotFirst, 1)
      const fetchStart = fetchStartOf(load.entryUrl)
      pending.push({
        remote: load.remote,
        version: load.version,
        target: load.target,
        entryMs: round(load.entryMs),
        exposeMs: round(load.exposeMs),
        mountMs: round(load.mountMs),
        readyMs: round(load.readyAt),
        preloaded: fetchStart !== null && fetchStart < load.startedAt,
      })
      if (timer !== null) timers.clearTimeout(timer)
      timer = timers.setTimeout(flush, delayMs)
    },
    flush,
  }
}
