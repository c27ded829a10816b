import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { DESCRIPTOR_FILE, remoteDescriptorSchema, type SnapshotRemote } from '@tessera/contracts'
import { remoteDir, remoteNames } from './paths.ts'

/**
 * Copies each remote's build to `<cdnRoot>/<name>/<version>/` and writes the registry file the
 * BFF serves as `GET /api/remotes`. This is the local stand-in for publishing (issue 6 replaces it).
 */
export function publishLocal(options: {
  cdnRoot: string
  cdnUrl: string
  registryFile: string
}): SnapshotRemote[] {
  const entries: SnapshotRemote[] = []
  for (const name of remoteNames) {
    const dist = path.join(remoteDir(name), 'dist')
    const descriptor = remoteDescriptorSchema.parse(
      JSON.parse(readFileSync(path.join(dist, DESCRIPTOR_FILE), 'utf8')),
    )
    const target = path.join(options.cdnRoot, descriptor.name, descriptor.version)
    // A local rebuild of the same version replaces the old copy; real publishing refuses that.
    if (existsSync(target)) rmSync(target, { recursive: true })
    mkdirSync(path.dirname(target), { recursive: true })
    cpSync(dist, target, { recursive: true })
    const base = `${options.cdnUrl}/${descriptor.name}/${descriptor.version}`
    entries.push({
      name: descriptor.name,
      version: descriptor.version,
      entryUrl: `${base}/${descriptor.entry}`,
      contract: descriptor.contract,
      basePath: descriptor.basePath,
      nav: descriptor.nav,
      slots: descriptor.slots,
      previous: null,
      // The host requests these together with the entry (descriptor paths are relative to it).
      ...(descriptor.preload
        ? { preload: descriptor.preload.map((file) => `${base}/${file}`) }
        : {}),
    })
  }
  mkdirSync(path.dirname(options.registryFile), { recursive: true })
  writeFileSync(options.registryFile, JSON.stringify({ remotes: entries }, null, 2) + '\n')
  return entries
}
