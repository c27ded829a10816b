import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import {
  CONTRACT_MAJOR,
  DESCRIPTOR_FILE,
  HOST_SHARED_MAJORS,
  compatibilityProblems,
  deployDescriptorSchema,
  descriptorDigest,
  semverSchema,
  type RegisterVersionResponse,
  type RemoteDescriptor,
} from '@tessera/contracts'
import { contentTypeFor } from '@tessera/emulators/cdn/content-types'
import type { StorageDriver } from '../lib/storage/driver.ts'
import { StorageConflictError } from '../lib/storage/driver.ts'
import type { DeployApi } from './deploy-api.ts'

/** Published files never change, so browsers and CDNs may keep them forever. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable'

/** A build that cannot be published, with the sentence that says why and what to do. */
export class PublishError extends Error {
  override name = 'PublishError'
}

export interface PublishBuildOptions {
  /** The remote's `dist/` folder (holding tessera-remote.json). */
  dist: string
  storage: StorageDriver
  api: DeployApi
  /** Publish as this version instead of the descriptor's (previews, tests). */
  version?: string
  /**
   * When the version is already taken by other content, publish as `<version>-local.<digest>`
   * instead of failing: the local stack's answer to a rebuild after a code change.
   */
  suffixWhenTaken?: boolean
  log?: (line: string) => void
}

export interface PublishedBuild {
  descriptor: RemoteDescriptor
  uploaded: number
  alreadyStored: number
  bytes: number
  result: RegisterVersionResponse
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/** Reads and checks `dist/tessera-remote.json`; every file must still hash as the descriptor says. */
export async function readBuild(
  dist: string,
  /** Publish as this version instead of the descriptor's: refusals then name the right one. */
  version?: string,
): Promise<{ descriptor: RemoteDescriptor; files: Map<string, Uint8Array> }> {
  const descriptorFile = path.join(dist, DESCRIPTOR_FILE)
  let raw: unknown
  try {
    raw = JSON.parse(await readFile(descriptorFile, 'utf8'))
  } catch (error) {
    throw new PublishError(
      `There is no readable ${DESCRIPTOR_FILE} in ${dist} (${error instanceof Error ? error.message : String(error)}): build the remote first.`,
    )
  }
  const parsed = deployDescriptorSchema.safeParse(raw)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
    throw new PublishError(`${descriptorFile} is not a valid descriptor: ${problems.join('; ')}`)
  }
  if (version !== undefined && !semverSchema.safeParse(version).success) {
    throw new PublishError(`--version ${version} is not a semantic version like 1.2.3.`)
  }
  const descriptor = version === undefined ? parsed.data : { ...parsed.data, version }
  const files = new Map<string, Uint8Array>()
  for (const file of descriptor.files) {
    const bytes = new Uint8Array(await readFile(path.join(dist, ...file.path.split('/'))))
    if (sha256(bytes) !== file.sha256 || bytes.byteLength !== file.bytes) {
      throw new PublishError(
        `${file.path} in ${dist} is not the file the build described (its sha256 differs): rebuild before publishing.`,
      )
    }
    files.set(file.path, bytes)
  }
  const problems = compatibilityProblems(descriptor, {
    contract: CONTRACT_MAJOR,
    shared: HOST_SHARED_MAJORS,
  })
  if (problems.length > 0) {
    throw new PublishError(problems.map((problem) => problem.message).join(' '))
  }
  return { descriptor, files }
}

/** Whether every file can go to `<name>/<version>/` (absent, or already the same bytes). */
async function storageFits(
  storage: StorageDriver,
  prefix: string,
  descriptor: RemoteDescriptor,
): Promise<boolean> {
  for (const file of descriptor.files) {
    const stored = await storage.exists(`${prefix}/${file.path}`)
    if (stored !== null && stored.sha256 !== file.sha256) return false
  }
  return true
}

/** Whether the registry already holds `version` with other content. */
async function takenByOther(
  api: DeployApi,
  remote: string,
  version: string,
  digest: string,
): Promise<boolean> {
  const state = await api.state(remote)
  const registered = state.versions.find((candidate) => candidate.version === version)
  return registered !== undefined && registered.contentSha256 !== digest
}

/**
 * Publishes one build: checks its descriptor and files, uploads them under the immutable path
 * `<name>/<version>/…` (files already there with the same bytes are kept, other bytes refused),
 * then registers the version with the deploy API, which downloads and checks every file again.
 * This is the one publish path: `npm run publish` and the local stack's start both use it.
 */
export async function publishBuild(options: PublishBuildOptions): Promise<PublishedBuild> {
  const log = options.log ?? (() => undefined)
  const build = await readBuild(options.dist, options.version)
  let descriptor = build.descriptor
  const remote = descriptor.name
  if (options.suffixWhenTaken) {
    const digest = await descriptorDigest(descriptor)
    const base = descriptor.version
    const candidates = [base, `${base}-local.${digest.slice(0, 8)}`]
    let chosen: string | undefined
    for (const version of candidates) {
      const fits =
        !(await takenByOther(options.api, remote, version, digest)) &&
        (await storageFits(options.storage, `${remote}/${version}`, descriptor))
      if (fits) {
        chosen = version
        break
      }
    }
    if (chosen === undefined) {
      throw new PublishError(
        `${remote}: neither ${candidates.join(' nor ')} is free for this build in the registry and storage.`,
      )
    }
    if (chosen !== base)
      log(`${remote} ${base} is taken by an earlier build; publishing as ${chosen}`)
    descriptor = { ...descriptor, version: chosen }
  }

  const prefix = `${remote}/${descriptor.version}`
  let uploaded = 0
  let alreadyStored = 0
  let bytes = 0
  try {
    for (const file of descriptor.files) {
      const key = `${prefix}/${file.path}`
      const content = build.files.get(file.path)
      if (content === undefined) throw new PublishError(`${file.path} was not read from the build.`)
      bytes += content.byteLength
      const stored = await options.storage.exists(key)
      if (stored?.sha256 === file.sha256) {
        alreadyStored += 1
        continue
      }
      await options.storage.put(key, content, {
        contentType: contentTypeFor(file.path),
        cacheControl: IMMUTABLE_CACHE,
      })
      uploaded += 1
    }
    // The descriptor beside the files is for people and tools; the registry keeps its own copy.
    // Its build time differs between identical rebuilds, so an existing one is left as it is.
    const descriptorKey = `${prefix}/${DESCRIPTOR_FILE}`
    if ((await options.storage.exists(descriptorKey)) === null) {
      await options.storage.put(
        descriptorKey,
        new TextEncoder().encode(`${JSON.stringify(descriptor, null, 2)}\n`),
        { contentType: contentTypeFor(DESCRIPTOR_FILE), cacheControl: IMMUTABLE_CACHE },
      )
    }
  } catch (error) {
    if (error instanceof StorageConflictError) {
      throw new PublishError(
        `${remote} ${descriptor.version} is already in ${options.storage.name} storage with other content (${error.path}). Versions are immutable: publish this build as a new version (--version).`,
      )
    }
    throw error
  }
  log(
    `${remote} ${descriptor.version}: ${descriptor.files.length} files (${Math.round(bytes / 1024)} KB) in ${options.storage.name} storage, ${uploaded} uploaded, ${alreadyStored} already there`,
  )
  const baseUrl = options.storage.publicUrl(prefix)
  const result = await options.api.register({ descriptor, baseUrl })
  return { descriptor, uploaded, alreadyStored, bytes, result }
}
