/**
 * Supabase Storage's HTTP API as `@supabase/supabase-js`'s storage client uses it, the subset
 * publishing needs: buckets (create, get, list), objects (upload, download, list, remove) and the
 * public object URL. Mounted under `/storage/v1`; state lives in the `storage` schema of the project
 * database (`storage-schema.ts`), bytes included.
 */
import { Hono } from 'hono'
import type { Context } from 'hono'
import { z } from 'zod'
import type { Sql } from '@tessera/db/sql'
import type { ApiKeys } from './api-keys.ts'
import { apiKeyRole, bearerToken, requireApiKey } from './api-keys.ts'
import type { Clock } from './clock.ts'
import type { SigningKey } from './signing-keys.ts'
import { verifyJwt } from './signing-keys.ts'
import {
  StorageError,
  bucketAlreadyExists,
  entityTooLarge,
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
import type { Bucket, ObjectInfo, StoredObject } from './storage-store.ts'
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

/** JSON bodies (bucket options, list and remove requests) are small; uploads are not JSON. */
const maxJsonBytes = 1024 * 1024

async function readJson(c: Context): Promise<unknown> {
  const bytes = await readBodyCapped(c.req.raw, maxJsonBytes)
  if (bytes === null) throw invalidRequest(`The JSON body is larger than ${maxJsonBytes} bytes.`)
  const text = new TextDecoder().decode(bytes)
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw invalidRequest(
      `The body is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
}

function parseWith<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  const where = issue === undefined || issue.path.length === 0 ? 'body' : issue.path.join('.')
  throw invalidRequest(`${where}: ${issue?.message ?? 'invalid'}`)
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
  id: z.string().optional(),
  name: z.string().optional(),
  public: z.boolean().nullish(),
  file_size_limit: z.union([z.number(), z.string()]).nullish(),
  allowed_mime_types: z.array(z.string()).nullish(),
  type: z.string().nullish(),
})

const listBucketsQuerySchema = z.looseObject({
  search: z.string().default(''),
  sortColumn: z.enum(['id', 'name', 'created_at', 'updated_at']).default('name'),
  sortOrder: z.enum(['asc', 'desc', 'ASC', 'DESC']).default('asc'),
  limit: z.coerce.number().int().min(0).default(Number.MAX_SAFE_INTEGER),
  offset: z.coerce.number().int().min(0).default(0),
})

const listObjectsSchema = z.looseObject({
  prefix: z.string().default(''),
  limit: z.number().int().min(0).default(100),
  offset: z.number().int().min(0).default(0),
  search: z.string().nullish(),
  sortBy: z
    .object({
      column: z.enum(['name', 'created_at', 'updated_at', 'last_accessed_at']).default('name'),
      order: z.enum(['asc', 'desc', 'ASC', 'DESC']).default('asc'),
    })
    .partial()
    .optional(),
})

const removeObjectsSchema = z.looseObject({ prefixes: z.array(z.string()).min(1).max(1000) })

function bucketJson(bucket: Bucket): Record<string, unknown> {
  return {
    id: bucket.id,
    name: bucket.name,
    owner: '',
    public: bucket.public,
    type: 'STANDARD',
    file_size_limit: bucket.fileSizeLimit,
    allowed_mime_types: null,
    created_at: bucket.createdAt.toISOString(),
    updated_at: bucket.updatedAt.toISOString(),
  }
}

/** An object as Storage lists and removes it (`FileObject`). */
function objectJson(object: ObjectInfo, name = object.name): Record<string, unknown> {
  return {
    name,
    bucket_id: object.bucketId,
    owner: '',
    id: object.id,
    updated_at: object.updatedAt.toISOString(),
    created_at: object.createdAt.toISOString(),
    last_accessed_at: object.lastAccessedAt.toISOString(),
    metadata: object.metadata,
    user_metadata: object.userMetadata,
  }
}

const folderJson = (name: string) => ({
  name,
  id: null,
  updated_at: null,
  created_at: null,
  last_accessed_at: null,
  metadata: null,
})

/**
 * Reads a request body of at most `cap` bytes. A larger body is still read to its end (and
 * dropped), so the client gets the answer instead of a reset connection; then null.
 */
async function readBodyCapped(request: Request, cap: number): Promise<Uint8Array | null> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  let over = Number.isFinite(declared) && declared > cap
  const chunks: Uint8Array[] = []
  let size = 0
  if (request.body !== null) {
    const reader = request.body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > cap) over = true
      if (!over) chunks.push(value)
    }
  }
  if (over) return null
  const body = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    body.set(chunk, offset)
    offset += chunk.byteLength
  }
  return body
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('')
}

function parseUserMetadata(json: string | null | undefined): Record<string, unknown> | null {
  if (json === null || json === undefined || json === '') return null
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (error) {
    throw invalidRequest(
      `metadata is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalidRequest('metadata must be a JSON object')
  return value as Record<string, unknown>
}

/** `x-metadata` is base64 of UTF-8 JSON. */
function decodeBase64Text(encoded: string): string {
  let binary: string
  try {
    binary = atob(encoded)
  } catch (error) {
    throw invalidRequest(
      `x-metadata is not base64: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  return new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)))
}

/** Room for multipart boundaries and the small fields storage-js sends beside the file. */
const multipartOverhead = 64 * 1024

interface IncomingFile {
  content: Uint8Array
  contentType: string
  cacheControl: string
  userMetadata: Record<string, unknown> | null
}

/**
 * The uploaded file, read the way hosted Storage reads it: multipart/form-data (what storage-js
 * sends for a Blob or File: fields `cacheControl`, `metadata`, then the file) or a raw body whose
 * `content-type`, `cache-control` and base64 `x-metadata` headers describe it.
 */
async function readIncomingFile(c: Context, limit: number): Promise<IncomingFile> {
  const contentType = c.req.header('content-type') ?? ''
  if (contentType.toLowerCase().startsWith('multipart/form-data')) {
    const raw = await readBodyCapped(c.req.raw, limit + multipartOverhead)
    if (raw === null) throw entityTooLarge(limit)
    let form: FormData
    try {
      form = await new Response(raw as Uint8Array<ArrayBuffer>, {
        headers: { 'content-type': contentType },
      }).formData()
    } catch (error) {
      throw invalidRequest(
        `No content provided: the multipart body could not be read (${error instanceof Error ? error.message : String(error)})`,
      )
    }
    let file: File | undefined
    for (const value of form.values()) {
      if (typeof value !== 'string') {
        file = value
        break
      }
    }
    if (file === undefined) throw invalidRequest('No content provided')
    if (file.size > limit) throw entityTooLarge(limit)
    const field = (name: string) => {
      const value = form.get(name)
      return typeof value === 'string' ? value : undefined
    }
    const cacheTime = field('cacheControl')
    return {
      content: new Uint8Array(await file.arrayBuffer()),
      contentType: field('contentType') || file.type || 'application/octet-stream',
      cacheControl: cacheTime ? `max-age=${cacheTime}` : 'no-cache',
      userMetadata: parseUserMetadata(field('metadata') ?? field('userMetadata')),
    }
  }
  const content = await readBodyCapped(c.req.raw, limit)
  if (content === null) throw entityTooLarge(limit)
  const encodedMetadata = c.req.header('x-metadata')
  return {
    content,
    contentType: contentType || 'application/octet-stream',
    cacheControl: c.req.header('cache-control') ?? 'no-cache',
    userMetadata:
      encodedMetadata === undefined ? null : parseUserMetadata(decodeBase64Text(encodedMetadata)),
  }
}

/** An object's bytes with the headers hosted Storage serves it with. */
function serveObject(c: Context, object: StoredObject): Response {
  const etag = String(object.metadata.eTag ?? `"${object.sha256.slice(0, 32)}"`)
  const headers: Record<string, string> = {
    'Content-Type': object.contentType,
    'Cache-Control': object.cacheControl,
    ETag: etag,
    'Last-Modified': object.updatedAt.toUTCString(),
    'Accept-Ranges': 'none',
    // The type is the one given at upload: browsers must not second-guess it.
    'X-Content-Type-Options': 'nosniff',
  }
  const download = c.req.query('download')
  if (download !== undefined) {
    const fileName = download || object.name.slice(object.name.lastIndexOf('/') + 1)
    headers['Content-Disposition'] = `attachment; filename="${fileName.replace(/["\\]/g, '_')}"`
  }
  const ifNoneMatch = c.req.header('if-none-match')
  if (
    ifNoneMatch !== undefined &&
    ifNoneMatch
      .split(',')
      .map((tag) => tag.trim().replace(/^W\//, ''))
      .some((tag) => tag === '*' || tag === etag)
  ) {
    return c.body(null, 304, headers)
  }
  return c.body(object.content as Uint8Array<ArrayBuffer>, 200, {
    ...headers,
    'Content-Length': String(object.content.byteLength),
  })
}

/**
 * One level of a "folder": objects directly under `prefix` and the sub-folders holding the rest,
 * as Storage's `search()` answers `list()`. Folders have no dates: sorted by a date, they come first.
 */
function listLevel(
  objects: readonly ObjectInfo[],
  prefix: string,
  options: z.infer<typeof listObjectsSchema>,
): Record<string, unknown>[] {
  const search = (options.search ?? '').toLowerCase()
  const column = options.sortBy?.column ?? 'name'
  const dateOf = (object: ObjectInfo) =>
    column === 'created_at'
      ? object.createdAt
      : column === 'updated_at'
        ? object.updatedAt
        : object.lastAccessedAt
  const folders = new Set<string>()
  const entries: Array<{ folder: boolean; sortKey: string; json: Record<string, unknown> }> = []
  for (const object of objects) {
    const rest = object.name.slice(prefix.length)
    if (!rest.toLowerCase().startsWith(search)) continue
    const slash = rest.indexOf('/')
    if (slash === -1) {
      const sortKey = column === 'name' ? rest : dateOf(object).toISOString()
      entries.push({ folder: false, sortKey, json: objectJson(object, rest) })
      continue
    }
    const folder = rest.slice(0, slash)
    if (folders.has(folder)) continue
    folders.add(folder)
    entries.push({ folder: true, sortKey: folder, json: folderJson(folder) })
  }
  const sign = (options.sortBy?.order ?? 'asc').toLowerCase() === 'desc' ? -1 : 1
  entries.sort((a, b) => {
    if (column !== 'name' && a.folder !== b.folder) return a.folder ? -1 : 1
    return (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0) * sign
  })
  return entries.slice(options.offset, options.offset + options.limit).map((entry) => entry.json)
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
