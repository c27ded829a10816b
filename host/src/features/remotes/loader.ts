import {
  asPlugin,
  CONTRACT_MAJOR,
  type Plugin,
  type RemoteErrorReport,
  type RemoteErrorStage,
  type SnapshotRemote,
} from '@tessera/contracts'
import { browserTimers, warnToConsole, type Timers } from '../../lib/runtime.ts'
import { RemoteLoadError, type RemoteEntryRef } from './remote-load-error.ts'

export type LoadOutcome =
  | {
      ok: true
      plugin: Plugin
      /** The version that is running: the snapshot's, or its previous one after a fallback. */
      version: string
      fellBack: boolean
      /** The attempt that succeeded: when it started, and how long the entry and then the
       * exposed module took, in ms. */
      timing: LoadTiming
    }
  | { ok: false; failure: RemoteFailure }

/** Why a remote could not be shown, for the fallback card. */
export interface RemoteFailure {
  stage: RemoteErrorStage
  reason: RemoteLoadError['reason']
  /** The technical message of the last attempt at the snapshot's version. */
  message: string
  /** The sentence for people, when there is a specific one (the contract refusal). */
  sentence: string | null
  triedPrevious: boolean
}

export interface LoadTiming {
  startedAt: number
  entryMs: number
  exposeMs: number
}

export interface RemoteLoaderOptions {
  /**
   * Fetches a remote's entry and returns what its `./plugin` module exports by default; calls
   * `entryReady` once the entry has loaded and before the exposed module is fetched.
   */
  loadModule(ref: RemoteEntryRef, entryReady?: () => void): Promise<unknown>
  /** Fire-and-forget telemetry; must not throw (a throw is caught and logged anyway). */
  report(report: RemoteErrorReport): void
  timers?: Timers
  /** How long one attempt may take: a hung origin never settles, so this is what ends it. */
  timeoutMs?: number
  /** Pause before the one retry of the snapshot's version. */
  retryDelayMs?: number
  contractMajor?: number
  log?: (message: string, detail?: unknown) => void
  /** A monotonic clock in ms (`performance.now`). */
  now?: () => number
}

export interface RemoteLoader {
  /** Loads a remote's plugin, sharing one load between its route and its slots. */
  load(remote: SnapshotRemote): Promise<LoadOutcome>
}

/** The name people see for a remote: its navigation label, else its name with a capital. */
export function remoteLabel(remote: Pick<SnapshotRemote, 'name' | 'nav'>): string {
  return remote.nav?.label ?? remote.name.charAt(0).toUpperCase() + remote.name.slice(1)
}

/** The sentence shown (and reported) when a plugin was built for another contract major. */
export function contractMismatchSentence(label: string, theirs: number, ours: number): string {
  return `${label} was built for platform contract ${theirs}, but this app speaks contract ${ours}. Its team needs to publish a compatible version.`
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  timers: Timers,
  ref: RemoteEntryRef,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const handle = timers.setTimeout(() => {
      reject(
        new RemoteLoadError(
          'entry',
          'timeout',
          `${ref.name}@${ref.version} did not load within ${ms / 1000} s from ${ref.entryUrl}`,
        ),
      )
    }, ms)
    promise.then(
      (value) => {
        timers.clearTimeout(handle)
        resolve(value)
      },
      (error: unknown) => {
        timers.clearTimeout(handle)
        reject(error)
      },
    )
  })
}

function sleep(ms: number, timers: Timers): Promise<void> {
  return new Promise((resolve) => {
    timers.setTimeout(resolve, ms)
  })
}

/**
 * Loads remotes the way DESIGN §4 says: the snapshot's version with a timeout, one retry after a
 * pause, then the previous good version when the snapshot names one, then give up so the outlet
 * shows the fallback card. Every failure is reported with its stage. A plugin built for another
 * contract major is refused without retry or fallback: no amount of retrying makes it compatible.
 */
export function createRemoteLoader({
  loadModule,
  report,
  timers = browserTimers,
  timeoutMs = 8000,
  retryDelayMs = 500,
  contractMajor = CONTRACT_MAJOR,
  log = warnToConsole,
  now = () => performance.now(),
}: RemoteLoaderOptions): RemoteLoader {
  const loads = new Map<string, Promise<LoadOutcome>>()

  function send(entry: RemoteErrorReport): void {
    try {
      report(entry)
    } catch (error) {
      log('Reporting a remote failure failed', error)
    }
  }

  interface Attempted {
    plugin: Plugin
    timing: LoadTiming
  }

  async function attempt(remote: SnapshotRemote, ref: RemoteEntryRef): Promise<Attempted> {
    const startedAt = now()
    let entryAt: number | null = null
    let exported: unknown
    try {
      exported = await withTimeout(
        loadModule(ref, () => {
          entryAt = now()
        }),
        timeoutMs,
        timers,
        ref,
      )
    } catch (error) {
      if (error instanceof RemoteLoadError) throw error
      throw new RemoteLoadError('entry', 'unreachable', messageOf(error))
    }
    const plugin = asPlugin(exported)
    if (!plugin) {
      throw new RemoteLoadError(
        'plugin',
        'invalid',
        `${ref.name}@${ref.version}: ./plugin does not export a plugin (definePlugin) as its default export`,
      )
    }
    if (plugin.name !== remote.name) {
      throw new RemoteLoadError(
        'plugin',
        'invalid',
        `${ref.name}@${ref.version}: ./plugin calls itself "${plugin.name}", not "${remote.name}"`,
      )
    }
    if (plugin.contract !== contractMajor) {
      throw new RemoteLoadError(
        'contract',
        'contract',
        contractMismatchSentence(remoteLabel(remote), plugin.contract, contractMajor),
      )
    }
    const doneAt = now()
    const entryDoneAt = entryAt ?? doneAt
    return {
      plugin,
      timing: { startedAt, entryMs: entryDoneAt - startedAt, exposeMs: doneAt - entryDoneAt },
    }
  }

  function asLoadError(error: unknown): RemoteLoadError {
    return error instanceof RemoteLoadError
      ? error
      : new RemoteLoadError('entry', 'unreachable', messageOf(error))
  }

  function failure(error: RemoteLoadError, triedPrevious: boolean): LoadOutcome {
    return {
      ok: false,
      failure: {
        stage: error.stage,
        reason: error.reason,
        message: error.message,
        sentence: error.reason === 'contract' ? error.message : null,
        triedPrevious,
      },
    }
  }

  async function run(remote: SnapshotRemote): Promise<LoadOutcome> {
    const current: RemoteEntryRef = {
      name: remote.name,
      version: remote.version,
      entryUrl: remote.entryUrl,
      ...(remote.preload ? { preload: remote.preload } : {}),
      ...(remote.routePreload ? { routePreload: remote.routePreload } : {}),
    }
    const reportFailure = (
      ref: RemoteEntryRef,
      error: RemoteLoadError,
      fellBack: boolean,
    ): void => {
      log(`Remote ${ref.name}@${ref.version} failed (${error.stage}): ${error.message}`)
      send({
        remote: ref.name,
        version: ref.version,
        stage: error.stage,
        message: error.message,
        fellBack,
      })
    }

    // The snapshot already says which contract the build targets: refuse before fetching any code.
    if (remote.contract !== contractMajor) {
      const error = new RemoteLoadError(
        'contract',
        'contract',
        contractMismatchSentence(remoteLabel(remote), remote.contract, contractMajor),
      )
      reportFailure(current, error, true)
      return failure(error, false)
    }

    let lastError: RemoteLoadError
    try {
      return {
        ok: true,
        ...(await attempt(remote, current)),
        version: remote.version,
        fellBack: false,
      }
    } catch (error) {
      lastError = asLoadError(error)
    }
    // Only a failed download is worth retrying: a module that loaded but is wrong stays wrong.
    const retryable = lastError.stage === 'entry'
    if (lastError.stage === 'contract') {
      reportFailure(current, lastError, true)
      return failure(lastError, false)
    }
    reportFailure(current, lastError, !retryable)

    if (retryable) {
      await sleep(retryDelayMs, timers)
      try {
        return {
          ok: true,
          ...(await attempt(remote, current)),
          version: remote.version,
          fellBack: false,
        }
      } catch (error) {
        lastError = asLoadError(error)
        reportFailure(current, lastError, true)
        if (lastError.stage === 'contract') return failure(lastError, false)
      }
    }

    if (remote.previous) {
      const previous: RemoteEntryRef = {
        name: remote.name,
        version: remote.previous.version,
        entryUrl: remote.previous.entryUrl,
      }
      try {
        const attempted = await attempt(remote, previous)
        log(
          `Remote ${remote.name} runs its previous version ${previous.version} because ${remote.version} failed`,
        )
        return { ok: true, ...attempted, version: previous.version, fellBack: true }
      } catch (error) {
        reportFailure(previous, asLoadError(error), true)
        return failure(lastError, true)
      }
    }
    return failure(lastError, false)
  }

  return {
    load(remote) {
      const existing = loads.get(remote.name)
      if (existing) return existing
      const pending = run(remote).then((outcome) => {
        // Keep successes for the page's lifetime; forget failures so "Try again" starts afresh.
        if (!outcome.ok && loads.get(remote.name) === pending) loads.delete(remote.name)
        return outcome
      })
      loads.set(remote.name, pending)
      return pending
    },
  }
}
