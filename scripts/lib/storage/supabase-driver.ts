/**
 * The `supabase` driver: files in a public Supabase Storage bucket, through `@supabase/supabase-js`
 * with the service role key (hosted Supabase, or the stand-in in `emulators/src/supabase`). The
 * bucket is created, public, on first use. Uploads never set `x-upsert`, so Storage itself refuses
 * to replace a file; a refusal is then settled by comparing hashes.
 */
import { StorageApiError, createClient } from '@supabase/supabase-js'
import type { SupabaseClientOptions } from '@supabase/supabase-js'
import WebSocket from 'ws'
import type { StorageDriver } from './driver.ts'
import { StorageConflictError, StorageDriverError, checkStoragePath, sha256Hex } from './driver.ts'

export interface SupabaseDriverOptions {
  /** The project URL (`SUPABASE_URL`). */
  url: string
  /** The service role (secret) key: writes need it. */
  serviceRoleKey: string
  /** The public bucket holding published builds. */
  bucket?: string
  fetch?: typeof fetch
}

export const defaultRemotesBucket = 'remotes'

type RealtimeTransport = NonNullable<
  NonNullable<SupabaseClientOptions<'public'>['realtime']>['transport']
>

/** Storage answers 4xx as HTTP 400 with the real status in `statusCode`: read that. */
const statusOf = (error: unknown): string | undefined =>
  error instanceof StorageApiError ? error.statusCode : undefined

function failure(what: string, error: unknown): StorageDriverError {
  const detail = error instanceof Error ? error.message : String(error)
  const status = statusOf(error)
  return new StorageDriverError(
    `Supabase Storage failed ${what}: ${detail}${status === undefined ? '' : ` (status ${status})`}.`,
    { cause: error },
  )
}

export function createSupabaseDriver(options: SupabaseDriverOptions): StorageDriver {
  const bucket = options.bucket ?? defaultRemotesBucket
  const client = createClient(options.url, options.serviceRoleKey, {
    auth: { autoRefreshToken: false, persistSession: false, detectSessionInUrl: false },
    // Node 20 has no global WebSocket and supabase-js refuses to start without one (realtime is
    // never used here).
    realtime: { transport: WebSocket as unknown as RealtimeTransport },
    ...(options.fetch === undefined ? {} : { global: { fetch: options.fetch } }),
  })
  const files = () => client.storage.from(bucket)

  async function checkPublic(): Promise<boolean> {
    const { data, error } = await client.storage.getBucket(bucket)
    if (error !== null) {
      if (statusOf(error) === '404') return false
      throw failure(`to read bucket "${bucket}"`, error)
    }
    if (!data.public) {
      throw new StorageDriverError(
        `The Supabase Storage bucket "${bucket}" is private, so its public URLs would not serve ` +
          `remotes. Make it public (dashboard, or storage.updateBucket('${bucket}', { public: true })) ` +
          'or choose another bucket.',
      )
    }
    return true
  }

  async function ensureBucket(): Promise<void> {
    if (await checkPublic()) return
    const { error } = await client.storage.createBucket(bucket, { public: true })
    // 409: another publish created it a moment ago; it must still be public.
    if (error !== null && statusOf(error) !== '409')
      throw failure(`to create bucket "${bucket}"`, error)
    if (error !== null) await checkPublic()
  }

  let bucketReady: Promise<void> | undefined
  const bucketIsReady = () => {
    bucketReady ??= ensureBucket().catch((error: unknown) => {
      // A failed check is retried by the next call instead of failing every later one.
      bucketReady = undefined
      throw error
    })
    return bucketReady
  }

  async function exists(path: string): Promise<{ sha256: string } | null> {
    checkStoragePath(path)
    const { data, error } = await files().download(path)
    if (error !== null) {
      if (statusOf(error) === '404') return null
      throw failure(`to read ${path}`, error)
    }
    return { sha256: sha256Hex(new Uint8Array(await data.arrayBuffer())) }
  }

  return {
    name: 'supabase',

    async put(path, bytes, { contentType, cacheControl }) {
      checkStoragePath(path)
      await bucketIsReady()
      const sha256 = sha256Hex(bytes)
      const { error } = await files().upload(path, bytes, {
        contentType,
        upsert: false,
        // storage-js would send `max-age=<cacheControl>`; Storage keeps whatever header it gets.
        headers: { 'cache-control': cacheControl },
      })
      if (error === null) return
      if (statusOf(error) !== '409') throw failure(`to upload ${path}`, error)
      const stored = await exists(path)
      if (stored === null) {
        throw new StorageDriverError(
          `${path} was refused as already present, then could not be found: another publish may be removing it. Try again.`,
        )
      }
      if (stored.sha256 !== sha256) throw new StorageConflictError(path, stored.sha256, sha256)
    },

    exists,

    publicUrl(path) {
      checkStoragePath(path)
      return files().getPublicUrl(path).data.publicUrl
    },
  }
}
