import { existsSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import path from 'node:path'

/** The repository root, wherever a script is started from. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** The remotes folder: each folder in it with a package.json is one remote (the workspaces glob). */
export const remotesDir = path.join(repoRoot, 'remotes')

/**
 * The remotes as they are on disk now, sorted: adding or removing a folder under `remotes/` is the
 * only change a team makes to plug in or out.
 */
export function discoverRemotes(dir: string = remotesDir): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true })
    .filter(
      (entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, 'package.json')),
    )
    .map((entry) => entry.name)
    .sort()
}

/** The remotes found when this process started (see `discoverRemotes` for a fresh look). */
export const remoteNames: readonly string[] = discoverRemotes()
export type RemoteName = string

export const remoteDir = (name: RemoteName): string => path.join(remotesDir, name)
export const hostDir = path.join(repoRoot, 'host')
