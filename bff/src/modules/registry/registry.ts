import { snapshotRemoteSchema } from '@tessera/contracts'
import type { RegistrySnapshot, SnapshotRemote } from '@tessera/contracts'
import { z } from 'zod/mini'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'

/**
 * What every snapshot is built from: per remote its stable entry and, while one runs, its canary
 * (`{ percentage, remote }`), plus problems the source already found. Entries are unchecked here:
 * `buildSnapshot` validates each one, so one bad entry never hides the others.
 */
export interface RegistryContent {
  remotes: unknown[]
  diagnostics?: RegistrySnapshot['diagnostics']
}

/** Where the registry comes from: the database (registry-db-source.ts), or a test's content. */
export interface RegistrySource {
  /** The registry content; throws when it cannot be read. */
  read(): Promise<unknown>
  /** Calls `onChange` when the content may have changed; returns the function that stops it. */
  watch?(onChange: () => void): () => void
  /** Says the content changed in this process (a deploy committed): readers and watchers learn now. */
  invalidate?(): void
}

/** A registry that cannot be read, with a sentence fit for the snapshot's diagnostics. */
export class RegistryReadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'RegistryReadError'
  }
}

type Diagnostic = RegistrySnapshot['diagnostics'][number]

/** Which users see a remote's canary: `inCanary(remote, percentage)` for this viewer. */
export type CanaryChooser = (remote: string, percentage: number) => boolean

const canarySchema = z.object({
  percentage: z.int().check(z.gte(1), z.lte(100)),
  remote: snapshotRemoteSchema,
})

function describeIssues(error: z.core.$ZodError): string {
  return error.issues
    .map((issue) =>
      issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
    )
    .join('; ')
}

function nameOf(entry: unknown): string | null {
  if (typeof entry !== 'object' || entry === null || !('name' in entry)) return null
  return typeof entry.name === 'string' ? entry.name : null
}

function canaryOf(entry: unknown): unknown {
  return typeof entry === 'object' && entry !== null && 'canary' in entry ? entry.canary : undefined
}

function isForOperators(entry: unknown): boolean {
  return typeof entry === 'object' && entry !== null && 'audience' in entry
    ? entry.audience === 'operators'
    : false
}

/** Whether any entry is for operators only (the viewer's role matters only then). */
export function hasOperatorRemotes(content: unknown): boolean {
  return (listOf(content) ?? []).some(isForOperators)
}

/** The names of the remotes whose entry carries a canary (the viewer's bucket matters only then). */
export function remotesWithCanary(content: unknown): string[] {
  const list = listOf(content)
  if (list === undefined) return []
  return list.flatMap((entry) => {
    const canary = canaryOf(entry)
    const name = nameOf(entry)
    return canary === undefined || canary === null || name === null ? [] : [name]
  })
}

function listOf(content: unknown): unknown[] | undefined {
  const list =
    typeof content === 'object' && content !== null && 'remotes' in content
      ? content.remotes
      : undefined
  return Array.isArray(list) ? list : undefined
}

function diagnosticsOf(content: unknown): Diagnostic[] {
  const list =
    typeof content === 'object' && content !== null && 'diagnostics' in content
      ? content.diagnostics
      : undefined
  const parsed = z.array(z.object({ remote: z.nullable(z.string()), message: z.string() }))
  const result = parsed.safeParse(list ?? [])
  return result.success ? result.data : []
}

/**
 * Builds one viewer's snapshot from registry content. Each entry is validated on its own: a
 * malformed or duplicate entry is left out and named in `diagnostics`, and the others are served.
 * A remote with a canary serves it to the viewers `inCanary` picks, with the stable version as
 * their previous good one; everyone else gets stable.
 */
export function buildSnapshot(
  content: unknown,
  generatedAt: string,
  inCanary: CanaryChooser = () => false,
  /** False: remotes for operators are left out and listed in `restricted`. Default: all served. */
  operator = true,
): RegistrySnapshot {
  const list = listOf(content)
  if (list === undefined) {
    return {
      generatedAt,
      remotes: [],
      diagnostics: [
        { remote: null, message: 'The registry has no "remotes" list, so no remote is served.' },
      ],
    }
  }

  const remotes: SnapshotRemote[] = []
  const restricted: NonNullable<RegistrySnapshot['restricted']> = []
  const diagnostics: Diagnostic[] = [...diagnosticsOf(content)]
  const names = new Set<string>()
  const basePaths = new Set<string>()
  list.forEach((entry: unknown, index) => {
    const parsed = snapshotRemoteSchema.safeParse(entry)
    if (!parsed.success) {
      const name = nameOf(entry)
      const which = name === null ? `The entry at position ${index + 1}` : `Remote "${name}"`
      diagnostics.push({
        remote: name,
        message: `${which} was left out because it is malformed (${describeIssues(parsed.error)}).`,
      })
      return
    }
    const stable: SnapshotRemote = { ...parsed.data, channel: 'stable' }
    if (names.has(stable.name)) {
      diagnostics.push({
        remote: stable.name,
        message: `Remote "${stable.name}" was left out because an earlier entry has the same name.`,
      })
      return
    }
    if (basePaths.has(stable.basePath)) {
      diagnostics.push({
        remote: stable.name,
        message: `Remote "${stable.name}" was left out because an earlier entry already uses the base path ${stable.basePath}.`,
      })
      return
    }
    names.add(stable.name)
    basePaths.add(stable.basePath)
    // No URL at all for a viewer it is not for: their browser never fetches its files.
    if (!operator && isForOperators(entry)) {
      restricted.push({ name: stable.name, basePath: stable.basePath })
      return
    }
    remotes.push(chooseChannel(stable, canaryOf(entry), inCanary, diagnostics))
  })
  return restricted.length === 0
    ? { generatedAt, remotes, diagnostics }
    : { generatedAt, remotes, restricted, diagnostics }
}

function chooseChannel(
  stable: SnapshotRemote,
  rawCanary: unknown,
  inCanary: CanaryChooser,
  diagnostics: Diagnostic[],
): SnapshotRemote {
  if (rawCanary === undefined || rawCanary === null) return stable
  const canary = canarySchema.safeParse(rawCanary)
  if (!canary.success) {
    diagnostics.push({
      remote: stable.name,
      message: `The canary of "${stable.name}" is not served because it is malformed (${describeIssues(canary.error)}).`,
    })
    return stable
  }
  const { remote, percentage } = canary.data
  // The canary stands in for the stable entry: same remote, same place in the frame.
  if (remote.name !== stable.name || remote.basePath !== stable.basePath) {
    diagnostics.push({
      remote: stable.name,
      message: `The canary of "${stable.name}" is not served because it names another remote or base path (${remote.name}, ${remote.basePath}).`,
    })
    return stable
  }
  if (!inCanary(stable.name, percentage)) return stable
  return {
    ...remote,
    channel: 'canary',
    // A canary that fails to load falls back to what everyone else runs.
    previous: { version: stable.version, entryUrl: stable.entryUrl },
  }
}

/** Who a snapshot is for: the viewer's sticky canary buckets (null: never in a canary). */
export interface SnapshotViewer {
  /** The viewer's bucket (0–99) for a remote; the canary is served when it is below its share. */
  bucketOf?: (remote: string) => number
  /** Whether the viewer is an operator; false leaves remotes for operators out. Default: true. */
  operator?: boolean
}

export interface SnapshotReader {
  /** The registry content as the source has it now (never throws: failures become diagnostics). */
  content(): Promise<unknown>
  /** The snapshot for one viewer, from content read with `content()` (or read now). */
  build(viewer: SnapshotViewer, content?: unknown): Promise<RegistrySnapshot>
}

/**
 * Reads the registry and builds snapshots, never throwing: an unreadable registry is an empty
 * snapshot with one diagnostic. Diagnostics are logged when they change, not on every request.
 */
export function createSnapshotReader(deps: {
  registry: RegistrySource
  logger: Logger
  clock: Clock
}): SnapshotReader {
  let lastLogged = '[]'
  const content = async (): Promise<unknown> => {
    try {
      return await deps.registry.read()
    } catch (error) {
      const message =
        error instanceof RegistryReadError
          ? error.message
          : 'The registry could not be read, so no remote is served.'
      if (!(error instanceof RegistryReadError)) {
        deps.logger.error('registry read failed', { error })
      }
      return { remotes: [], diagnostics: [{ remote: null, message }] } satisfies RegistryContent
    }
  }
  return {
    content,
    async build(viewer, given) {
      const generatedAt = new Date(deps.clock.now()).toISOString()
      const bucketOf = viewer.bucketOf
      const snapshot = buildSnapshot(
        given === undefined ? await content() : given,
        generatedAt,
        bucketOf === undefined ? undefined : (remote, percentage) => bucketOf(remote) < percentage,
        viewer.operator ?? true,
      )
      const logged = JSON.stringify(snapshot.diagnostics)
      if (logged !== lastLogged) {
        lastLogged = logged
        for (const diagnostic of snapshot.diagnostics) {
          deps.logger.warn('registry entry omitted', { ...diagnostic })
        }
      }
      return snapshot
    },
  }
}
