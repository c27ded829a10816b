import { snapshotRemoteSchema } from '@tessera/contracts'
import type { RegistrySnapshot, SnapshotRemote } from '@tessera/contracts'
import type { z } from 'zod'
import type { Clock } from '../clock.ts'
import type { Logger } from '../logger.ts'

/** Where the registry comes from: in this issue a JSON file `{ remotes: [...] }`. */
export interface RegistrySource {
  /** The parsed registry content; throws when it cannot be read or parsed. */
  read(): Promise<unknown>
  /** Calls `onChange` when the content may have changed; returns the function that stops it. */
  watch?(onChange: () => void): () => void
}

/** A registry that cannot be read, with a sentence fit for the snapshot's diagnostics. */
export class RegistryReadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'RegistryReadError'
  }
}

type Diagnostic = RegistrySnapshot['diagnostics'][number]

function describeIssues(error: z.ZodError): string {
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

/**
 * Builds the snapshot from registry content. Each entry is validated on its own: a malformed or
 * duplicate entry is left out and named in `diagnostics`, and the others are served.
 */
export function buildSnapshot(content: unknown, generatedAt: string): RegistrySnapshot {
  const list =
    typeof content === 'object' && content !== null && 'remotes' in content
      ? content.remotes
      : undefined
  if (!Array.isArray(list)) {
    return {
      generatedAt,
      remotes: [],
      diagnostics: [
        { remote: null, message: 'The registry has no "remotes" list, so no remote is served.' },
      ],
    }
  }

  const remotes: SnapshotRemote[] = []
  const diagnostics: Diagnostic[] = []
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
    const remote = parsed.data
    if (names.has(remote.name)) {
      diagnostics.push({
        remote: remote.name,
        message: `Remote "${remote.name}" was left out because an earlier entry has the same name.`,
      })
      return
    }
    if (basePaths.has(remote.basePath)) {
      diagnostics.push({
        remote: remote.name,
        message: `Remote "${remote.name}" was left out because an earlier entry already uses the base path ${remote.basePath}.`,
      })
      return
    }
    names.add(remote.name)
    basePaths.add(remote.basePath)
    remotes.push(remote)
  })
  return { generatedAt, remotes, diagnostics }
}

/**
 * Reads the registry and builds the snapshot, never throwing: an unreadable registry is an empty
 * snapshot with one diagnostic. Diagnostics are logged when they change, not on every request.
 */
export function createSnapshotReader(deps: {
  registry: RegistrySource
  logger: Logger
  clock: Clock
}): () => Promise<RegistrySnapshot> {
  let lastLogged = '[]'
  return async function readSnapshot() {
    const generatedAt = new Date(deps.clock.now()).toISOString()
    let snapshot: RegistrySnapshot
    try {
      snapshot = buildSnapshot(await deps.registry.read(), generatedAt)
    } catch (error) {
      const message =
        error instanceof RegistryReadError
          ? error.message
          : 'The registry could not be read, so no remote is served.'
      if (!(error instanceof RegistryReadError)) {
        deps.logger.error('registry read failed', { error })
      }
      snapshot = { generatedAt, remotes: [], diagnostics: [{ remote: null, message }] }
    }
    const logged = JSON.stringify(snapshot.diagnostics)
    if (logged !== lastLogged) {
      lastLogged = logged
      for (const diagnostic of snapshot.diagnostics) {
        deps.logger.warn('registry entry omitted', { ...diagnostic })
      }
    }
    return snapshot
  }
}
