/**
 * Supabase Storage's HTTP API as `@supabase/supabase-js`'s storage client uses it, the subset
 * publishing needs: buckets (create, get, list), objects (upload, download, list, remove) and the
 * public object URL. Mounted under `/storage/v1`; state lives in the `storage` schema of the project
 * database (`storage-schema.ts`), bytes included.
 */
import { Hono } from 'hono'
import type { Context } from 'hono'
import { z } from 'zod/mini'
import type { Sql } from '@tessera/db/sql'
import type { ApiKeys } from './api-keys.ts'
import { apiKeyRole, bearerToken, requireApiKey } from './api-keys.ts'
import type { Clock } from './clock.ts'
import type { SigningKey } from './signing-keys.ts'
import { verifyJwt } from './signing-keys.ts'
import {
  StorageError,
  bucketAlreadyExists,
  invalidJwt,
  invalidRequest,
  keyAlreadyExists,
  noSuchBucket,
  noSuchKey,
  notProvided,
  respondWithStorageError,
  rowLevelSecurity,
  unexpectedFailure,
} from './storage-errors.ts'
import {
  checkBucketId,
  decodeBucketId,
  decodeObjectKey,
  objectKeyProblem,
} from './storage-paths.ts'
import { parseWith, readIncomingFile, readJson } from './storage-request.ts'
import {
  bucketJson,
  listLevel,
  listObjectsSchema,
  objectJson,
  serveObject,
} from './storage-responses.ts'
import type { Bucket } from './storage-store.ts'
import {
  deleteObjects,
  findBucket,
  insertBucket,
  listBuckets,
  listObjectsUnder,
  readObject,
  writeObject,
} from './storage-store.ts'

export interface StorageConfig {
  /** The largest object accepted, in bytes (hosted Storage's default is 50 MB); buckets may lower it. */
  fileSizeLimit: number
}

export const defaultStorageConfig: StorageConfig = { fileSizeLimit: 50 * 1024 * 1024 }

export interface StorageDeps {
  sql: Sql
  apiKeys: ApiKeys
  key: SigningKey
  clock: Clock
  config: StorageConfig
  onUnexpectedError?: (error: unknown) => void
}

/** Where the app is mounted; object keys are read from the raw path after it. */
export const storagePrefix = '/storage/v1'

type StorageRole = 'service_role' | 'anon' | 'authenticated'

/**
 * The role a request acts as, as Storage reads it from the bearer token (or, without one, the API
 * key). The stand-in's keys are opaque strings, as Supabase's new API keys; user tokens are GoTrue's.
 */
async function roleOf(c: Context, deps: StorageDeps): Promise<StorageRole> {
  const bearer = bearerToken(c)
  if (bearer === undefined) return apiKeyRole(c, deps.apiKeys) ?? 'anon'
  if (bearer === deps.apiKeys.serviceRole) return 'service_role'
  if (bearer === deps.apiKeys.anon) return 'anon'
  try {
    const claims = await verifyJwt(deps.key, bearer, deps.clock.now())
    return claims.role === 'service_role' ? 'service_role' : 'authenticated'
  } catch (error) {
    throw invalidJwt(error instanceof Error ? error.message : String(error))
  }
}

/** Writes need the service role: the stand-in has no storage policies, like a fresh project. */
async function requireWriter(c: Context, deps: StorageDeps): Promise<void> {
  if ((await roleOf(c, deps)) !== 'service_role') throw rowLevelSecurity()
}

/**
 * Reads through the API see rows only with the service role: with row level security on and no
 * policies, anon and signed-in users see no buckets and no objects (public URLs need no key).
 */
async function canRead(c: Context, deps: StorageDeps): Promise<boolean> {
  return (await roleOf(c, deps)) === 'service_role'
}

/** Storage's size strings (`20GB`, `1.5MB`, `30KB`, `3B`, decimal units) or a number of bytes. */
export function parseFileSizeLimit(value: number | string): number {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0) return value
    throw invalidRequest('file_size_limit: a whole number of bytes, or a size like 20MB')
  }
  const match = /^([0-9]+(?:\.[0-9]+)?)(gb|mb|kb|b)$/i.exec(value.trim())
  if (match === null || match[1] === undefined || match[2] === undefined) {
    throw invalidRequest('Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B')
  }
  const factor = { gb: 1e9, mb: 1e6, kb: 1e3, b: 1 }[match[2].toLowerCase() as 'gb']
  return Math.round(Number(match[1]) * factor)
}

const createBucketSchema = z.looseObject({
  id: z.optional(z.string()),
  name: z.optional(z.string()),
  public: z.nullish(z.boolean()),
  file_size_limit: z.nullish(z.union([z.number(), z.string()])),
  allowed_mime_types: z.nullish(z.array(z.string())),
  type: z.nullish(z.string()),
})

const listBucketsQuerySchema = z.looseObject({
  search: z._default(z.string(), ''),
  sortColumn: z._default(z.enum(['id', 'name', 'created_at', 'updated_at']), 'name'),
  sortOrder: z._default(z.enum(['asc', 'desc', 'ASC', 'DESC']), 'asc'),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(0)), Number.MAX_SAFE_INTEGER),
  offset: z._default(z.coerce.number().check(z.int(), z.gte(0)), 0),
})

const removeObjectsSchema = z.looseObject({
  prefixes: z.array(z.string()).check(z.minLength(1), z.maxLength(1000)),
})

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('')
}

/** Builds the Storage app, to be mounted with `app.route(storagePrefix, …)`. */
export function createStorageApp(deps: StorageDeps): Hono {
  const { sql } = deps
  const storage = new Hono()

  storage.onError((error, c) => {
    if (error instanceof StorageError) return respondWithStorageError(c, error)
    deps.onUnexpectedError?.(error)
    return respondWithStorageError(c, unexpectedFailure())
  })

  // Supabase's gateway answers CORS for Storage for any origin: public URLs are loaded by pages.
  storage.use('*', async function storageCors(c, next) {
    if (c.req.method === 'OPTIONS') {
      return c.body(null, 204, {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Methods': 'GET, HEAD, POST, PUT, DELETE, OPTIONS',
        'Access-Control-Allow-Headers':
          c.req.header('access-control-request-headers') ??
          'authorization, apikey, content-type, x-client-info, x-upsert, cache-control, x-metadata',
        'Access-Control-Max-Age': '3600',
      })
    }
    await next()
    c.res.headers.set('Access-Control-Allow-Origin', '*')
  })

  // Public objects are served without a key, as hosted; everything else needs one.
  const isPublicRead = (c: Context) =>
    (c.req.method === 'GET' || c.req.method === 'HEAD') &&
    c.req.path.startsWith(`${storagePrefix}/object/public/`)
  storage.use('*', requireApiKey(deps.apiKeys, { open: isPublicRead }))

  storage.get('/bucket', async (c) => {
    const { search, sortColumn, sortOrder, limit, offset } = parseWith(
      listBucketsQuerySchema,
      c.req.query(),
    )
    if (!(await canRead(c, deps))) return c.json([])
    const key = (bucket: Bucket): string =>
      sortColumn === 'id'
        ? bucket.id
        : sortColumn === 'name'
          ? bucket.name
          : bucket[sortColumn === 'created_at' ? 'createdAt' : 'updatedAt'].toISOString()
    const buckets = (await listBuckets(sql))
      .filter((bucket) => bucket.name.toLowerCase().includes(search.toLowerCase()))
      .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
    if (sortOrder.toLowerCase() === 'desc') buckets.reverse()
    return c.json(buckets.slice(offset, offset + limit).map(bucketJson))
  })

  storage.get('/bucket/:id', async (c) => {
    const bucket = (await canRead(c, deps)) ? await findBucket(sql, c.req.param('id')) : null
    if (bucket === null) throw noSuchBucket()
    return c.json(bucketJson(bucket))
  })

  storage.post('/bucket', async (c) => {
    await requireWriter(c, deps)
    const body = parseWith(createBucketSchema, await readJson(c))
    const id = checkBucketId(body.id ?? body.name ?? '')
    if (body.name !== undefined && body.name !== id)
      throw notProvided('a bucket name that differs from its id')
    if (body.allowed_mime_types !== null && body.allowed_mime_types !== undefined)
      throw notProvided('allowed_mime_types on buckets')
    if (body.type !== null && body.type !== undefined && body.type !== 'STANDARD')
      throw notProvided(`buckets of type ${body.type}`)
    const limit =
      body.file_size_limit === null || body.file_size_limit === undefined
        ? null
        : parseFileSizeLimit(body.file_size_limit)
    const created = await insertBucket(sql, {
      id,
      name: id,
      public: body.public ?? false,
      fileSizeLimit: limit,
      now: deps.clock.now(),
    })
    if (!created) throw bucketAlreadyExists()
    return c.json({ name: id })
  })

  /** Objects: `/object/<bucket>/<key>` and the `public`, `authenticated` and `list` forms. */
  storage.all('/object/*', async (c) => {
    const rest = new URL(c.req.url).pathname.slice(`${storagePrefix}/object/`.length)
    const [first = '', ...others] = rest.split('/')
    const method = c.req.method
    const read = method === 'GET' || method === 'HEAD'
    const described = `${method} ${storagePrefix}/object/${first}${others.length > 0 ? '/…' : ''}`

    if (first === 'public' && read) {
      const [bucketPart = '', ...keyParts] = others
      const bucket = await findBucket(sql, decodeBucketId(bucketPart))
      if (bucket === null || !bucket.public) throw noSuchBucket()
      const object = await readObject(sql, bucket.id, decodeObjectKey(keyParts.join('/')))
      if (object === null) throw noSuchKey()
      return serveObject(c, object)
    }
    if (first === 'authenticated' && read) {
      const [bucketPart = '', ...keyParts] = others
      return download(c, bucketPart, keyParts.join('/'))
    }
    if (first === 'list' && method === 'POST' && others.length === 1) {
      return list(c, others[0] ?? '')
    }
    if (['info', 'sign', 'upload', 'move', 'copy', 'list-v2', 'list', 'render'].includes(first)) {
      throw notProvided(described)
    }
    if (others.length === 0) {
      if (method === 'DELETE') return remove(c, first)
      throw notProvided(described)
    }
    const key = others.join('/')
    if (method === 'POST') return upload(c, first, key, c.req.header('x-upsert') === 'true')
    // Storage's PUT replaces the object at a path (storage-js `update`).
    if (method === 'PUT') return upload(c, first, key, true)
    if (read) return download(c, first, key)
    throw notProvided(described)
  })

  async function upload(c: Context, bucketPart: string, keyPart: string, upsert: boolean) {
    await requireWriter(c, deps)
    const bucket = await findBucket(sql, decodeBucketId(bucketPart))
    if (bucket === null) throw noSuchBucket()
    const name = decodeObjectKey(keyPart)
    const limit = Math.min(deps.config.fileSizeLimit, bucket.fileSizeLimit ?? Infinity)
    const file = await readIncomingFile(c, limit)
    const written = await writeObject(
      sql,
      {
        bucketId: bucket.id,
        name,
        content: file.content,
        contentType: file.contentType,
        cacheControl: file.cacheControl,
        sha256: await sha256Hex(file.content),
        userMetadata: file.userMetadata,
        now: deps.clock.now(),
      },
      { upsert },
    )
    if (written === null) throw keyAlreadyExists()
    return c.json({ Id: written.id, Key: `${bucket.id}/${name}` })
  }

  async function download(c: Context, bucketPart: string, keyPart: string) {
    const bucketId = decodeBucketId(bucketPart)
    const name = decodeObjectKey(keyPart)
    if (!(await canRead(c, deps))) throw noSuchKey()
    const bucket = await findBucket(sql, bucketId)
    if (bucket === null) throw noSuchBucket()
    const object = await readObject(sql, bucket.id, name)
    if (object === null) throw noSuchKey()
    return serveObject(c, object)
  }

  async function list(c: Context, bucketPart: string) {
    const bucketId = decodeBucketId(bucketPart)
    const options = parseWith(listObjectsSchema, await readJson(c))
    if (!(await canRead(c, deps))) return c.json([])
    const bucket = await findBucket(sql, bucketId)
    if (bucket === null) throw noSuchBucket()
    // Storage reads the prefix as a folder: `a/b` lists what is inside `a/b/`.
    const prefix =
      options.prefix === '' || options.prefix.endsWith('/') ? options.prefix : `${options.prefix}/`
    const objects = await listObjectsUnder(sql, bucket.id, prefix)
    return c.json(listLevel(objects, prefix, options))
  }

  async function remove(c: Context, bucketPart: string) {
    await requireWriter(c, deps)
    const bucket = await findBucket(sql, decodeBucketId(bucketPart))
    if (bucket === null) throw noSuchBucket()
    const { prefixes } = parseWith(removeObjectsSchema, await readJson(c))
    // A name that is not a valid key cannot exist; Storage skips missing names silently.
    const names = prefixes.filter((name) => objectKeyProblem(name) === null)
    const removed = await deleteObjects(sql, bucket.id, names)
    return c.json(removed.map((object) => objectJson(object)))
  }

  storage.all('*', (c) => {
    throw notProvided(`${c.req.method} ${c.req.path}`)
  })

  return storage
}
