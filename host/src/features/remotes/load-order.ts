import { browserTimers, type Timers } from '../../lib/runtime.ts'

/**
 * The order remotes load in on a cold page: the page the visitor asked for first, the header
 * slots (badges, menus) after it, so they do not compete with it for the network and the main
 * thread. Slots wait until the page's remote has mounted (and the browser has had an idle moment
 * to render it) or failed, or the page has no remote, and never longer than `maxWaitMs` from the
 * first that asks (a slow or hung page must not keep the header empty). The live event stream
 * waits on the same gate (kernel.ts).
 */
export interface LoadOrder {
  /** Resolves when slot remotes may start loading; once resolved, it stays so. */
  slotsMayLoad(): Promise<void>
  /** The page's remote is shown or has failed, or there is none: slots may load once idle. */
  releaseSlots(): void
}

export interface LoadOrderOptions {
  timers?: Timers
  maxWaitMs?: number
  /**
   * Runs a callback once the page is idle. A plugin's mount only schedules its render, so
   * starting the slots at once would put their work ahead of it.
   */
  whenIdle?: (callback: () => void) => void
}

/** `requestIdleCallback` where there is one (with a deadline, so a busy page still goes on). */
function browserWhenIdle(timers: Timers): (callback: () => void) => void {
  return (callback) => {
    if (typeof globalThis.requestIdleCallback === 'function')
      globalThis.requestIdleCallback(callback, { timeout: 100 })
    else timers.setTimeout(callback, 0)
  }
}

export function createLoadOrder({
  timers = browserTimers,
  maxWaitMs = 1000,
  whenIdle = browserWhenIdle(timers),
}: LoadOrderOptions = {}): LoadOrder {
  let release: () => void = () => undefined
  let released = false
  let cap: unknown = null
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  const open = (): void => {
    if (released) return
    released = true
    if (cap !== null) timers.clearTimeout(cap)
    release()
  }
  return {
    slotsMayLoad() {
      if (!released && cap === null) cap = timers.setTimeout(open, maxWaitMs)
      return gate
    },
    releaseSlots() {
      if (!released) whenIdle(open)
    },
  }
}

/** Resolves once the browser has painted the next frame (a slot's content is not an LCP). */
export function nextPaint(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof requestAnimationFrame !== 'function') resolve()
    else requestAnimationFrame(() => requestAnimationFrame(() => resolve()))
  })
}

/** Observes largest-contentful-paint entries (PerformanceObserver in a browser that has them). */
export type LcpObserve = (onElement: (element: Element | null) => void) => (() => void) | null

const browserLcp: LcpObserve = (onElement) => {
  if (
    typeof PerformanceObserver === 'undefined' ||
    !PerformanceObserver.supportedEntryTypes?.includes('largest-contentful-paint')
  ) {
    return null
  }
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      onElement((entry as PerformanceEntry & { element?: Element | null }).element ?? null)
    }
  })
  observer.observe({ type: 'largest-contentful-paint', buffered: true })
  return () => observer.disconnect()
}

/**
 * Resolves once the browser has painted the page's content inside `container`: a page's plugin
 * often mounts a "Loading…" line (a `role="status"`, which does not count) and draws the page
 * when its lazy chunk arrives, and the slots should not compete with that chunk. Taken from the largest-contentful-paint entries (the page's
 * content is the largest thing on a cold load); at once where the browser has no such entries,
 * and after `maxWaitMs` at the latest (the slots' own cap in `createLoadOrder` comes first).
 */
export function whenContentPainted(
  container: Element,
  { observe = browserLcp, timers = browserTimers, maxWaitMs = 3000 } = {},
): Promise<void> {
  return new Promise((resolve) => {
    let stop: (() => void) | null = null
    let timer: unknown = null
    let done = false
    const finish = (): void => {
      if (done) return
      done = true
      stop?.()
      if (timer !== null) timers.clearTimeout(timer)
      resolve()
    }
    stop = observe((element) => {
      // A status line ("Loading your account…") is the plugin waiting for its page, not the page.
      if (element !== null && container.contains(element) && !element.closest('[role="status"]'))
        finish()
    })
    if (stop === null) finish()
    else if (!done) timer = timers.setTimeout(finish, maxWaitMs)
    else stop()
  })
}
