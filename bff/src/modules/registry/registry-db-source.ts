import { remoteDescriptorSchema } from '@tessera/contracts'
import type { SnapshotRemote } from '@tessera/contracts'
import type { SqlQueryable } from '@tessera/db/sql'
import { execute, queries } from '../../platform/db/query.ts'
import type { RegistryContent, RegistrySource } from './registry.ts'

/** A registered build, as the registry tables hold it. */
export interface StoredVersion {
  version: string
  baseUrl: string
  descriptor: unknown
}

/**
 * The snapshot entry of one stored build: URLs made absolute against where it is stored. A
 * descriptor that no longer reads (the schema moved on) is a sentence instead.
 */
export function snapshotEntryOf(
  name: string,
  stored: StoredVersion,
): { entry: SnapshotRemote } | { problem: string } {
  const parsed = remoteDescriptorSchema.safeParse(stored.descriptor)
  if (!parsed.success) {
    return {
      problem: `Remote "${name}" was left out because the registered descriptor of ${stored.version} is not valid (${parsed.error.issues
        .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
        .join('; ')}).`,
    }
  }
  const descriptor = parsed.data
  const base = stored.baseUrl
  return {
    entry: {
      name,
      version: stored.version,
      entryUrl: `${base}/${descriptor.entry}`,
      contract: descriptor.contract,
      basePath: descriptor.basePath,
      nav: descriptor.nav,
      slots: descriptor.slots,
      ...(descriptor.signedInSlots ? { signedInSlots: descriptor.signedInSlots } : {}),
      ...(descriptor.publicPaths ? { publicPaths: descriptor.publicPaths } : {}),
      ...(descriptor.firstReads ? { firstReads: descriptor.firstReads } : {}),
      previous: null,
      ...(descriptor.preload
        ? { preload: descriptor.preload.map((file) => `${base}/${file}`) }
        : {}),
      ...(descriptor.routePreload
        ? { routePreload: descriptor.routePreload.map((file) => `${base}/${file}`) }
        : {}),
    },
  }
}

/** The descriptor's `audience` as stored (`everyone` when absent or unreadable). */
function audienceOf(descriptor: unknown): 'everyone' | 'operators' {
  const parsed = remoteDescriptorSchema.safeParse(descriptor)
  return parsed.success && parsed.data.audience === 'operators' ? 'operators' : 'everyone'
}

/**
 * The newest deploy event's id: every change to what the registry serves writes an event in the
 * same transaction, so an unchanged id means unchanged content (in this process or any other).
 */
async function registryMark(on: SqlQueryable): Promise<number> {
  const { rows } = await execute(
    queries
      .selectFrom('remote_deploy_events')
      .select((eb) => eb.fn.coalesce(eb.fn.max<number | null>('id'), eb.lit(0)).as('mark')),
    on,
  )
  return Number(rows[0]?.mark ?? 0)
}

/** Reads every remote's stable and canary entries, and each one's previous good version. */
export async function loadRegistryContent(on: SqlQueryable): Promise<RegistryContent> {
  const [channels, good] = await Promise.all([
    execute(
      queries
        .selectFrom('remote_channels as c')
        .innerJoin('remote_versions as v', (join) =>
          join.onRef('v.remote_name', '=', 'c.remote_name').onRef('v.version', '=', 'c.version'),
        )
        .select([
          'c.remote_name',
          'c.channel',
          'c.percentage',
          'v.version',
          'v.base_url',
          'v.descriptor',
        ])
        .where('c.version', 'is not', null)
        .orderBy('c.remote_name'),
      on,
    ),
    // Candidates for "previous good": versions that were stable once and were not withdrawn.
    execute(
      queries
        .selectFrom('remote_versions')
        .select(['remote_name', 'version', 'base_url', 'descriptor'])
        .where('last_stable_revision', 'is not', null)
        .where('withdrawn_at', 'is', null)
        .orderBy('last_stable_revision', 'desc'),
      on,
    ),
  ])
  const remotes: unknown[] = []
  const diagnostics: NonNullable<RegistryContent['diagnostics']> = []
  const byRemote = new Map<
    string,
    { stable?: StoredVersion; canary?: StoredVersion & { percentage: number } }
  >()
  for (const row of channels.rows) {
    const slot = byRemote.get(row.remote_name) ?? {}
    const stored = { version: row.version, baseUrl: row.base_url, descriptor: row.descriptor }
    if (row.channel === 'stable') slot.stable = stored
    else slot.canary = { ...stored, percentage: row.percentage ?? 0 }
    byRemote.set(row.remote_name, slot)
  }
  for (const [name, { stable, canary }] of byRemote) {
    // A canary alone (its stable gone) is not served: it needs a version to fall back to.
    if (stable === undefined) continue
    const built = snapshotEntryOf(name, stable)
    if ('problem' in built) {
      diagnostics.push({ remote: name, message: built.problem })
      continue
    }
    const previousRow = good.rows.find(
      (row) => row.remote_name === name && row.version !== stable.version,
    )
    const previous =
      previousRow === undefined
        ? null
        : snapshotEntryOf(name, {
            version: previousRow.version,
            baseUrl: previousRow.base_url,
            descriptor: previousRow.descriptor,
          })
    const entry: Record<string, unknown> = {
      ...built.entry,
      // Who the stable build is for: snapshots leave an operators' remote out for everyone else.
      ...(audienceOf(stable.descriptor) === 'operators' ? { audience: 'operators' } : {}),
      previous:
        previous !== null && 'entry' in previous
          ? { version: previous.entry.version, entryUrl: previous.entry.entryUrl }
          : null,
    }
    if (canary !== undefined) {
      const canaryEntry = snapshotEntryOf(name, canary)
      if ('problem' in canaryEntry) diagnostics.push({ remote: name, message: canaryEntry.problem })
      else entry.canary = { percentage: canary.percentage, remote: canaryEntry.entry }
    }
    remotes.push(entry)
  }
  if (remotes.length === 0 && diagnostics.length === 0) {
    diagnostics.push({
      remote: null,
      message:
        'No remote has a stable version yet, so none is served. Publish one and promote it (npm start does this for the local builds).',
    })
  }
  return { remotes, diagnostics }
}

export interface DbRegistrySource extends RegistrySource {
  watch(onChange: () => void): () => void
  invalidate(): void
}

/**
 * The registry in Postgres. Reads cost one small query while nothing changed; `watch` polls that
 * query (other processes' deploys) and `invalidate` reports this process's own at once.
 */
export function createDbRegistrySource(options: {
  sql: SqlQueryable
  /** How often watchers check for changes made by another process (ms). */
  pollMs?: number
  onError?: (error: unknown) => void
}): DbRegistrySource {
  const { sql } = options
  let cache: { mark: number; content: RegistryContent } | null = null
  const listeners = new Set<() => void>()
  let timer: ReturnType<typeof setInterval> | undefined
  let lastPolled: number | null = null
  let polling = false

  const notify = (): void => {
    for (const listener of [...listeners]) listener()
  }
  const poll = async (): Promise<void> => {
    if (polling) return
    polling = true
    try {
      const mark = await registryMark(sql)
      if (lastPolled !== null && mark !== lastPolled) notify()
      lastPolled = mark
    } catch (error) {
      options.onError?.(error)
    } finally {
      polling = false
    }
  }

  return {
    async read() {
      const mark = await registryMark(sql)
      if (cache !== null && cache.mark === mark) return cache.content
      const content = await loadRegistryContent(sql)
      cache = { mark, content }
      return content
    },
    watch(onChange) {
      listeners.add(onChange)
      if (timer === undefined) {
        void poll()
        timer = setInterval(() => void poll(), options.pollMs ?? 1000)
        // Watching must never keep a process alive on its own (Node timers have unref).
        const handle: unknown = timer
        if (typeof handle === 'object' && handle !== null && 'unref' in handle) {
          if (typeof handle.unref === 'function') handle.unref()
        }
      }
      return () => {
        listeners.delete(onChange)
        if (listeners.size === 0 && timer !== undefined) {
          clearInterval(timer)
          timer = undefined
          lastPolled = null
        }
      }
    },
    invalidate() {
      cache = null
      notify()
    },
  }
}
