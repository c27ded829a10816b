/**
 * Where attachments' bytes live: a private Supabase Storage bucket, reached only by the BFF with
 * the service role key through `@supabase/supabase-js` (hosted Storage, or the stand-in in
 * emulators/src/supabase). The browser never gets a Storage URL or token: it reads its files
 * through `GET /api/assistant/attachments/:id`. The bucket is made, private, on first use.
 */
import { ApiError } from '@tessera/contracts'
import { StorageApiError, createClient } from '@supabase/supabase-js'
import type { SupabaseClientOptions } from '@supabase/supabase-js'
import type { Logger } from '../../platform/logger.ts'

export interface AttachmentStorage {
  upload(path: string, bytes: Uint8Array, contentType: string): Promise<void>
  download(path: string): Promise<Uint8Array>
  /** Removes objects; a path that is already gone is not an error. */
  remove(paths: readonly string[]): Promise<void>
}

export interface AttachmentStorageOptions {
  /** The project URL (`SUPABASE_URL`). */
  url: string
  serviceRoleKey: string
  bucket?: string
  fetch?: typeof fetch
  /** Where Storage's failures are written: people get `upstream_unavailable`, operators the cause. */
  logger: Logger
}

export const defaultAttachmentsBucket = 'assistant-attachments'

type RealtimeTransport = NonNullable<
  NonNullable<SupabaseClientOptions<'public'>['realtime']>['transport']
>

/**
 * supabase-js insists on a WebSocket (Node 20 has none) though only Storage is used here: a
 * transport that refuses, so a use of realtime would fail loudly instead of silently connecting.
 */
class NoRealtime {
  constructor() {
    throw new Error('The BFF does not use Supabase Realtime.')
  }
}

/** Storage answers 4xx as HTTP 400 with the real status in `statusCode`: read that. */
const statusOf = (error: unknown): string | undefined =>
  error instanceof StorageApiError ? error.statusCode : undefined

export function createAttachmentStorage(options: AttachmentStorageOptions): AttachmentStorage {
  const bucket = options.bucket ?? defaultAttachmentsBucket
  const client = createClient(options.url, options.serviceRoleKey, {
    auth: { autoRefreshToken: false, persistSession: false, detectSessionInUrl: false },
    realtime: { transport: NoRealtime as unknown as RealtimeTransport },
    ...(options.fetch === undefined ? {} : { global: { fetch: options.fetch } }),
  })
  const files = () => client.storage.from(bucket)
  /** A Storage failure as the catalogue names it (a service we depend on), logged with its cause. */
  const unavailable = (what: string, error: unknown): ApiError => {
    options.logger.error(`Supabase Storage failed ${what}`, { error, bucket })
    return new ApiError('upstream_unavailable', { details: { service: 'storage' } })
  }

  async function ensureBucket(): Promise<void> {
    const found = await client.storage.getBucket(bucket)
    if (found.error === null) {
      // A public bucket would serve every attachment to anyone with its path.
      if (found.data.public)
        throw new Error(
          `The Supabase Storage bucket "${bucket}" is public; attachments need a private one.`,
        )
      return
    }
    if (statusOf(found.error) !== '404') throw found.error
    const created = await client.storage.createBucket(bucket, { public: false })
    // 409: another replica made it a moment ago.
    if (created.error !== null && statusOf(created.error) !== '409') throw created.error
  }

  let ready: Promise<void> | undefined
  const bucketReady = () => {
    ready ??= ensureBucket().catch((error: unknown) => {
      ready = undefined
      throw unavailable('to prepare its bucket', error)
    })
    return ready
  }

  return {
    async upload(path, bytes, contentType) {
      await bucketReady()
      const { error } = await files().upload(path, bytes, { contentType, upsert: false })
      if (error !== null) throw unavailable('to store an attachment', error)
    },
    async download(path) {
      await bucketReady()
      const { data, error } = await files().download(path)
      if (error !== null) throw unavailable('to read an attachment', error)
      return new Uint8Array(await data.arrayBuffer())
    },
    async remove(paths) {
      if (paths.length === 0) return
      await bucketReady()
      const { error } = await files().remove([...paths])
      if (error !== null) throw unavailable('to remove attachments', error)
    },
  }
}
