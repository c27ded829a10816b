import type { RemoteErrorReport } from '@tessera/contracts'
import type { Context } from 'hono'
import type { AppEnv } from '../../http/app-env.ts'
import type { Clock } from '../../platform/clock.ts'
import type { SharedCounters } from '../../platform/shared-counters.ts'
import { buildSnapshot } from '../registry/registry.ts'
import type { SnapshotReader } from '../registry/registry.ts'
import type { RequestSnapshots } from '../registry/registry-viewer.ts'
import type { CanaryVerdict, DeployService } from './deploy-service.ts'

export interface CanaryMonitorOptions {
  clock: Clock
  /** How far back served snapshots and error reports count. */
  windowMs: number
  /** The share of clients (0–1] with errors at which a canary is stopped. */
  threshold: number
  /** Clients that must have been served the canary before a rate means anything. */
  minClients: number
  /** Clients remembered per version, so a flood cannot grow memory without bound. */
  maxClients?: number
}

export interface CanaryMonitor {
  /** A client was served `remote@version` as its canary. */
  served(remote: string, version: string, subject: string): Promise<void>
  /** A client reported an error for `remote@version`; answers whether the canary should stop. */
  failed(
    remote: string,
    version: string,
    subject: string,
  ): Promise<CanaryVerdict & { over: boolean }>
}

/** The verdict on a canary from its counts of distinct clients. */
function verdictOf(
  options: CanaryMonitorOptions,
  servedClients: number,
  errorClients: number,
): CanaryVerdict & { over: boolean } {
  const errorRate = servedClients === 0 ? 0 : errorClients / servedClients
  return {
    errorRate,
    errorClients,
    servedClients,
    threshold: options.threshold,
    minClients: options.minClients,
    windowSeconds: Math.round(options.windowMs / 1000),
    over: servedClients >= options.minClients && errorRate >= options.threshold,
  }
}

type Seen = Map<string, number>

/**
 * The canary's error rate, per distinct client: of the clients served the canary within the
 * window, the share that reported an error for it. Counting clients rather than reports keeps one
 * broken browser retrying in a loop from looking like an outage, and only clients that were
 * served the version can count against it (a report for a version nobody was served is noise).
 * In memory, per BFF process (docs/decisions/009); see createSharedCanaryMonitor for replicas.
 */
export function createCanaryMonitor(options: CanaryMonitorOptions): CanaryMonitor {
  const maxClients = options.maxClients ?? 50_000
  const versions = new Map<string, { served: Seen; failed: Seen }>()

  const prune = (seen: Seen, now: number): void => {
    // Maps iterate in insertion order and `touch` re-inserts: the oldest come first.
    for (const [subject, at] of seen) {
      if (now - at < options.windowMs && seen.size <= maxClients) break
      seen.delete(subject)
    }
  }
  const touch = (seen: Seen, subject: string, now: number): void => {
    seen.delete(subject)
    seen.set(subject, now)
    prune(seen, now)
  }
  const entry = (remote: string, version: string) => {
    const key = `${remote}@${version}`
    let found = versions.get(key)
    if (found === undefined) {
      found = { served: new Map(), failed: new Map() }
      versions.set(key, found)
    }
    return found
  }

  return {
    async served(remote, version, subject) {
      touch(entry(remote, version).served, subject, options.clock.now())
    },
    async failed(remote, version, subject) {
      const now = options.clock.now()
      const { served, failed } = entry(remote, version)
      touch(failed, subject, now)
      prune(served, now)
      let errorClients = 0
      for (const client of failed.keys()) if (served.has(client)) errorClients += 1
      return verdictOf(options, served.size, errorClients)
    },
  }
}

/**
 * The same counts, shared by every BFF replica through PostgreSQL (`canary_clients`): a serve or
 * a report is one upsert, the counts one query, so auto-stop sees the clients of all replicas.
 * While the database fails or is slow, this process's own counts decide (with a warning).
 */
export function createSharedCanaryMonitor(
  options: CanaryMonitorOptions & { counters: SharedCounters },
): CanaryMonitor {
  const { counters, clock, windowMs } = options
  const local = createCanaryMonitor(options)
  return {
    served(remote, version, subject) {
      return counters.attempt(
        'canary monitor',
        () => counters.canaryServed(remote, version, subject, clock.now()),
        () => local.served(remote, version, subject),
      )
    },
    failed(remote, version, subject) {
      return counters.attempt(
        'canary monitor',
        async () => {
          const now = clock.now()
          await counters.canaryFailed(remote, version, subject, now)
          const counts = await counters.canaryCounts(remote, version, now, windowMs)
          return verdictOf(options, counts.servedClients, counts.errorClients)
        },
        () => local.failed(remote, version, subject),
      )
    },
  }
}

/**
 * What the telemetry route calls for each error report: when it concerns a running canary and
 * the canary's error rate reaches the threshold, the canary is stopped (the deploy service's
 * compare-and-swap, its event, and the live `registry.changed`).
 */
export function createCanaryGuard(deps: {
  monitor: CanaryMonitor
  reader: SnapshotReader
  snapshots: Pick<RequestSnapshots, 'subjectOf'>
  deploy: Pick<DeployService, 'autoRollbackCanary'>
}): (report: RemoteErrorReport, c: Context<AppEnv>) => Promise<void> {
  return async function guardCanary(report, c) {
    const content = await deps.reader.content()
    // Everyone in every canary: the entry shows which version each canary serves.
    const canary = buildSnapshot(content, '', () => true).remotes.find(
      (remote) => remote.name === report.remote && remote.channel === 'canary',
    )
    if (canary?.version !== report.version) return
    const subject = await deps.snapshots.subjectOf(c)
    if (subject === null) return
    const verdict = await deps.monitor.failed(report.remote, report.version, subject)
    if (!verdict.over) return
    const { over: _over, ...stats } = verdict
    await deps.deploy.autoRollbackCanary(report.remote, report.version, stats)
  }
}
