import { ApiError } from '@tessera/contracts'
import type { FieldIssue, RemoteDescriptor } from '@tessera/contracts'
import { validationFailed } from '../../platform/errors.ts'
import { readCapped } from '../../platform/read-capped.ts'
import { sha256Hex } from './hash.ts'

export interface BuildVerifierOptions {
  /**
   * Where the BFF downloads builds from (and so serves remotes from): origins, or origins with a
   * folder (`DEPLOY_STORAGE_ORIGINS`).
   */
  allowedOrigins: readonly string[]
  timeoutMs: number
  /** The largest build (sum of its files) accepted. */
  maxBytes: number
  /** Downloads at once. */
  concurrency?: number
  fetch?: typeof fetch
}

export interface BuildVerifier {
  /** Where a build at `baseUrl` may come from; throws `validation_failed` with a sentence if not. */
  checkLocation(descriptor: RemoteDescriptor, baseUrl: string): void
  /**
   * Downloads every file of the descriptor from `baseUrl` and compares its bytes and sha256 with
   * the descriptor; throws `validation_failed` naming each file that differs or is missing, and
   * `upstream_unavailable` when the storage does not answer.
   */
  verify(descriptor: RemoteDescriptor, baseUrl: string): Promise<void>
}

class StorageUnreachable extends Error {}

/** A Supabase Storage public bucket, the folder builds live in when a bare origin is allowed. */
const supabaseBucket = /^\/storage\/v1\/object\/public\/(?!\.{1,2}$)[A-Za-z0-9._-]+$/

/**
 * Whether `url` is exactly an allowed folder followed by `/<name>/<version>`. A bare origin allows
 * its root and its Supabase public buckets. Matching the end alone would let a build be registered
 * from inside another remote's folder (`/auth/billing/9.9.9` ends with `/billing/9.9.9`).
 */
export function isImmutableBuildUrl(
  url: URL,
  locations: readonly string[],
  name: string,
  version: string,
): boolean {
  const path = url.pathname.replace(/\/+$/, '')
  const suffix = `/${name}/${version}`
  if (!path.endsWith(suffix) || url.search !== '' || url.hash !== '') return false
  const folder = path.slice(0, -suffix.length)
  return locations.some((location) => {
    const allowed = new URL(location)
    if (allowed.origin !== url.origin) return false
    const allowedFolder = allowed.pathname.replace(/\/+$/, '')
    return allowedFolder === folder || (allowedFolder === '' && supabaseBucket.test(folder))
  })
}

/** Checks uploaded builds against their descriptors before the registry accepts them. */
export function createBuildVerifier(options: BuildVerifierOptions): BuildVerifier {
  const doFetch = options.fetch ?? fetch
  const concurrency = options.concurrency ?? 4
  const allowed = new Set(options.allowedOrigins.map((location) => new URL(location).origin))

  const checkLocation: BuildVerifier['checkLocation'] = (descriptor, baseUrl) => {
    const url = new URL(baseUrl)
    const issues: FieldIssue[] = []
    if (!allowed.has(url.origin)) {
      issues.push({
        path: 'baseUrl',
        message: `${url.origin} is not a storage origin this server accepts builds from (${[...allowed].join(', ')}). Upload to one of those, or ask the operator to add it to DEPLOY_STORAGE_ORIGINS.`,
      })
    }
    const suffix = `/${descriptor.name}/${descriptor.version}`
    if (
      allowed.has(url.origin) &&
      !isImmutableBuildUrl(url, options.allowedOrigins, descriptor.name, descriptor.version)
    ) {
      issues.push({
        path: 'baseUrl',
        message: `The build must live under its immutable path: baseUrl must be a storage folder this server accepts (${options.allowedOrigins.join(', ')}) followed by exactly ${suffix} (it is ${baseUrl}).`,
      })
    }
    if (issues.length > 0) {
      throw new ApiError('validation_failed', {
        message: issues.map((issue) => issue.message).join(' '),
        details: { issues },
      })
    }
  }

  const checkOne = async (
    file: RemoteDescriptor['files'][number],
    index: number,
    base: string,
  ): Promise<FieldIssue | null> => {
    const url = `${base}/${file.path}`
    const path = `descriptor.files.${index}`
    let response: Response
    try {
      // No redirects: a build must be where it says it is, on an allowed origin.
      response = await doFetch(url, {
        redirect: 'error',
        signal: AbortSignal.timeout(options.timeoutMs),
      })
    } catch (error) {
      throw new StorageUnreachable(
        `The storage did not answer for ${url} (${error instanceof Error ? error.message : String(error)}).`,
      )
    }
    if (response.status === 404) {
      await response.body?.cancel()
      return {
        path,
        message: `${file.path} is not at ${url} (404): upload every file before registering.`,
      }
    }
    if (!response.ok) {
      await response.body?.cancel()
      if (response.status >= 500) {
        throw new StorageUnreachable(`The storage answered ${response.status} for ${url}.`)
      }
      return { path, message: `${file.path} could not be read from ${url} (${response.status}).` }
    }
    // More bytes than the descriptor promised (null): the file differs, whatever the rest holds.
    const bytes = await readCapped(response.body, file.bytes)
    if (bytes === null) {
      return {
        path,
        message: `${file.path} at ${url} is larger than the ${file.bytes} bytes the descriptor says: it is not the file that was built.`,
      }
    }
    const sha256 = await sha256Hex(bytes)
    if (sha256 !== file.sha256 || bytes.byteLength !== file.bytes) {
      return {
        path,
        message: `${file.path} at ${url} has sha256 ${sha256} (${bytes.byteLength} bytes), but the descriptor says ${file.sha256} (${file.bytes} bytes): it is not the file that was built.`,
      }
    }
    return null
  }

  return {
    checkLocation,
    async verify(descriptor, baseUrl) {
      checkLocation(descriptor, baseUrl)
      const total = descriptor.files.reduce((sum, file) => sum + file.bytes, 0)
      if (total > options.maxBytes) {
        throw validationFailedWith([
          {
            path: 'descriptor.files',
            message: `The build is ${total} bytes; this server accepts builds of at most ${options.maxBytes} bytes.`,
          },
        ])
      }
      const named = new Set(descriptor.files.map((file) => file.path))
      const unnamed = [
        descriptor.entry,
        ...(descriptor.preload ?? []),
        ...(descriptor.routePreload ?? []),
      ].filter((path) => !named.has(path))
      if (unnamed.length > 0) {
        throw validationFailedWith(
          unnamed.map((path) => ({
            path: 'descriptor.files',
            message: `${path} is the entry or a preload, but it is not among the descriptor's files.`,
          })),
        )
      }
      const base = baseUrl.replace(/\/+$/, '')
      const issues: FieldIssue[] = []
      let next = 0
      const worker = async (): Promise<void> => {
        while (next < descriptor.files.length) {
          const index = next++
          const file = descriptor.files[index]
          if (file === undefined) return
          const issue = await checkOne(file, index, base)
          if (issue !== null) issues.push(issue)
        }
      }
      try {
        await Promise.all(Array.from({ length: concurrency }, worker))
      } catch (error) {
        if (error instanceof StorageUnreachable) {
          throw new ApiError('upstream_unavailable', { message: error.message })
        }
        throw error
      }
      if (issues.length > 0) {
        issues.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }))
        throw validationFailedWith(issues)
      }
    },
  }
}

/** `validation_failed` whose message is the sentences themselves (the CLI prints it as is). */
function validationFailedWith(issues: FieldIssue[]): ApiError {
  const generic = validationFailed(issues)
  const shown = issues.slice(0, 3).map((issue) => issue.message)
  const more = issues.length > 3 ? ` (${issues.length - 3} more in details)` : ''
  return new ApiError('validation_failed', {
    message: `The build was refused: ${shown.join(' ')}${more}`,
    details: generic.details,
  })
}
