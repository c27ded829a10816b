/**
 * Storage's rows: buckets and objects (with their bytes) in the `storage` schema. Every write is
 * one statement, so concurrent uploads of one key cannot both win.
 */
import type { SqlQueryable } from '@tessera/db/sql'

export interface Bucket {
  id: string
  name: string
  public: boolean
  /** Bytes; null means the stand-in's global limit. */
  fileSizeLimit: number | null
  createdAt: Date
  updatedAt: Date
}

/** An object's row without its bytes. */
export interface ObjectInfo {
  id: string
  bucketId: string
  name: string
  contentType: string
  cacheControl: string
  size: number
  sha256: string
  /** Storage's `metadata` column: eTag, size, mimetype, cacheControl, lastModified… */
  metadata: Record<string, unknown>
  userMetadata: Record<string, unknown> | null
  createdAt: Date
  updatedAt: Date
  lastAccessedAt: Date
}

export interface StoredObject extends ObjectInfo {
  content: Uint8Array
}

interface BucketRow {
  id: string
  name: string
  public: boolean
  file_size_limit: number | null
  created_at: Date
  updated_at: Date
}

interface ObjectRow {
  id: string
  bucket_id: string
  name: string
  content_type: string
  cache_control: string
  size: number
  sha256: string
  metadata: Record<string, unknown>
  user_metadata: Record<string, unknown> | null
  created_at: Date
  updated_at: Date
  last_accessed_at: Date
}

// int8 reads differ by driver (number or string): send bucket limits back as float8.
const bucketColumns =
  'id, name, public, file_size_limit::float8 as file_size_limit, created_at, updated_at'
const objectColumns =
  'id, bucket_id, name, content_type, cache_control, size, sha256, metadata, user_metadata, created_at, updated_at, last_accessed_at'

const toBucket = (row: BucketRow): Bucket => ({
  id: row.id,
  name: row.name,
  public: row.public,
  fileSizeLimit: row.file_size_limit,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const toObjectInfo = (row: ObjectRow): ObjectInfo => ({
  id: row.id,
  bucketId: row.bucket_id,
  name: row.name,
  contentType: row.content_type,
  cacheControl: row.cache_control,
  size: row.size,
  sha256: row.sha256,
  metadata: row.metadata,
  userMetadata: row.user_metadata,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  lastAccessedAt: row.last_accessed_at,
})

export async function listBuckets(db: SqlQueryable): Promise<Bucket[]> {
  const { rows } = await db.query<BucketRow>(
    `select ${bucketColumns} from storage.buckets order by name`,
  )
  return rows.map(toBucket)
}

export async function findBucket(db: SqlQueryable, id: string): Promise<Bucket | null> {
  const { rows } = await db.query<BucketRow>(
    `select ${bucketColumns} from storage.buckets where id = $1`,
    [id],
  )
  const row = rows[0]
  return row === undefined ? null : toBucket(row)
}

/** Creates a bucket; false when the id or name is taken. */
export async function insertBucket(
  db: SqlQueryable,
  bucket: { id: string; name: string; public: boolean; fileSizeLimit: number | null; now: Date },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `insert into storage.buckets (id, name, public, file_size_limit, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $5)
     on conflict do nothing`,
    [bucket.id, bucket.name, bucket.public, bucket.fileSizeLimit, bucket.now],
  )
  return rowCount === 1
}

export interface NewObject {
  bucketId: string
  name: string
  content: Uint8Array
  contentType: string
  cacheControl: string
  sha256: string
  userMetadata: Record<string, unknown> | null
  now: Date
}

/** Storage's `metadata` for an object, as hosted Storage fills it from S3's answer. */
function objectMetadata(object: NewObject): Record<string, unknown> {
  return {
    // Hosted Storage's eTag is S3's MD5; any stable quoted digest serves clients the same.
    eTag: `"${object.sha256.slice(0, 32)}"`,
    size: object.content.byteLength,
    mimetype: object.contentType,
    cacheControl: object.cacheControl,
    lastModified: object.now.toISOString(),
    contentLength: object.content.byteLength,
    httpStatusCode: 200,
  }
}

/**
 * Stores an object. Without `upsert` an existing key is left alone and null is returned (Storage's
 * `KeyAlreadyExists`); with it the object is replaced and keeps its id.
 */
export async function writeObject(
  db: SqlQueryable,
  object: NewObject,
  options: { upsert: boolean },
): Promise<{ id: string } | null> {
  const conflict = options.upsert
    ? `on conflict (bucket_id, name) do update set
         content = excluded.content, content_type = excluded.content_type,
         cache_control = excluded.cache_control, size = excluded.size, sha256 = excluded.sha256,
         metadata = excluded.metadata, user_metadata = excluded.user_metadata,
         version = excluded.version, updated_at = excluded.updated_at,
         last_accessed_at = excluded.last_accessed_at`
    : 'on conflict (bucket_id, name) do nothing'
  const { rows } = await db.query<{ id: string }>(
    `insert into storage.objects
       (bucket_id, name, content, content_type, cache_control, size, sha256, metadata,
        user_metadata, version, created_at, updated_at, last_accessed_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10, $11, $11, $11)
     ${conflict}
     returning id`,
    [
      object.bucketId,
      object.name,
      object.content,
      object.contentType,
      object.cacheControl,
      object.content.byteLength,
      object.sha256,
      JSON.stringify(objectMetadata(object)),
      object.userMetadata === null ? null : JSON.stringify(object.userMetadata),
      crypto.randomUUID(),
      object.now,
    ],
  )
  return rows[0] ?? null
}

export async function readObject(
  db: SqlQueryable,
  bucketId: string,
  name: string,
): Promise<StoredObject | null> {
  const { rows } = await db.query<ObjectRow & { content: Uint8Array }>(
    `select ${objectColumns}, content from storage.objects where bucket_id = $1 and name = $2`,
    [bucketId, name],
  )
  const row = rows[0]
  if (row === undefined) return null
  // postgres.js gives a Buffer, PGlite a Uint8Array: hand out one type.
  const content = new Uint8Array(row.content.buffer, row.content.byteOffset, row.content.byteLength)
  return { ...toObjectInfo(row), content }
}

/** Objects whose name starts with `prefix` (exact case), without their bytes. */
export async function listObjectsUnder(
  db: SqlQueryable,
  bucketId: string,
  prefix: string,
): Promise<ObjectInfo[]> {
  const { rows } = await db.query<ObjectRow>(
    `select ${objectColumns} from storage.objects
     where bucket_id = $1 and left(name, length($2)) = $2
     order by name`,
    [bucketId, prefix],
  )
  return rows.map(toObjectInfo)
}

/** Deletes objects by exact name; returns the ones that existed. */
export async function deleteObjects(
  db: SqlQueryable,
  bucketId: string,
  names: readonly string[],
): Promise<ObjectInfo[]> {
  if (names.length === 0) return []
  const { rows } = await db.query<ObjectRow>(
    `delete from storage.objects
     where bucket_id = $1 and name = any(string_to_array($2, chr(1)))
     returning ${objectColumns}`,
    // Keys cannot hold control characters (storage-paths.ts), so U+0001 separates them safely.
    [bucketId, names.join('\u0001')],
  )
  return rows.map(toObjectInfo)
}
