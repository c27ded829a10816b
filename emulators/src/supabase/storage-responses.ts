// What Storage answers: buckets and objects as JSON, one "folder" level of a listing, and an
// object's bytes with the headers hosted Storage serves them with.
import type { Context } from 'hono'
import { z } from 'zod/mini'
import type { Bucket, ObjectInfo, StoredObject } from './storage-store.ts'

export const listObjectsSchema = z.looseObject({
  prefix: z._default(z.string(), ''),
  limit: z._default(z.int().check(z.gte(0)), 100),
  offset: z._default(z.int().check(z.gte(0)), 0),
  search: z.nullish(z.string()),
  sortBy: z.optional(
    z.partial(
      z.object({
        column: z._default(
          z.enum(['name', 'created_at', 'updated_at', 'last_accessed_at']),
          'name',
        ),
        order: z._default(z.enum(['asc', 'desc', 'ASC', 'DESC']), 'asc'),
      }),
    ),
  ),
})

export function bucketJson(bucket: Bucket): Record<string, unknown> {
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
export function objectJson(object: ObjectInfo, name = object.name): Record<string, unknown> {
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

/** An object's bytes with the headers hosted Storage serves it with. */
export function serveObject(c: Context, object: StoredObject): Response {
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
export function listLevel(
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
