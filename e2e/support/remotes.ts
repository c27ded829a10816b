// The remotes the suite is about, found as the scripts find them: each folder under `remotes/`
// with a package.json (the workspaces glob). Adding a remote's folder adds it to every journey
// that goes through all remotes (navigation, loading, the originjs guards).
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const remotesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../remotes')

/**
 * Names of the remotes a test creates for itself and removes afterwards (the scaffold's journey,
 * `scratch-<id>`): other journeys running meanwhile leave them out.
 */
export const isScratchRemote = (name: string): boolean => name.startsWith('scratch-')

export interface RemoteCase {
  name: string
  /** The navigation label (`nav.label` of its vite.config.ts). */
  label: string
  /** Its base path (`basePath` of its vite.config.ts). */
  path: string
}

/** Every remote folder's name, sorted, scratch remotes left out. */
export function remoteFolders(): string[] {
  return readdirSync(remotesDir, { withFileTypes: true })
    .filter(
      (entry) =>
        entry.isDirectory() &&
        !isScratchRemote(entry.name) &&
        existsSync(path.join(remotesDir, entry.name, 'package.json')),
    )
    .map((entry) => entry.name)
    .sort()
}

/**
 * The remotes with a page in every signed-in visitor's navigation, in navigation order. Read from
 * each one's `vite.config.ts` (`defineRemoteConfig({ basePath, nav: { label, order } })`), which
 * exists before any build, so the list is known when the suite collects its tests.
 */
export function navigableRemotes(): RemoteCase[] {
  const found: Array<RemoteCase & { order: number }> = []
  for (const name of remoteFolders()) {
    const config = path.join(remotesDir, name, 'vite.config.ts')
    if (!existsSync(config)) continue
    const text = readFileSync(config, 'utf8')
    // A remote for operators only (the console) is in no visitor's navigation; its own journeys
    // cover it.
    if (/audience:\s*'operators'/.test(text)) continue
    const basePath = /basePath:\s*'([^']+)'/.exec(text)?.[1]
    const nav = /nav:\s*\{\s*label:\s*'([^']+)',\s*order:\s*(-?\d+)/.exec(text)
    if (basePath === undefined || nav?.[1] === undefined) continue
    found.push({ name, label: nav[1], path: basePath, order: Number(nav[2]) })
  }
  return found
    .sort((a, b) => a.order - b.order || a.name.localeCompare(b.name))
    .map(({ name, label, path: basePath }) => ({ name, label, path: basePath }))
}
