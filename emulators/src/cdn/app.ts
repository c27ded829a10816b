import { Hono } from 'hono'
import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { errorCatalogue, type ErrorCode } from '@tessera/contracts/errors'
import { remoteNameSchema, semverSchema } from '@tessera/contracts/descriptor'
import { contentTypeFor } from './content-types.ts'

/**
 * Where the cdn's files come from. `segments` are decoded path segments, already checked to hold
 * no `.`, `..`, slash or backslash; the reader returns null for anything that is not a file.
 */
export interface CdnFiles {
  read(segments: readonly string[]): Promise<Uint8Array | null>
}

export interface CdnOptions {
  files: CdnFiles
  /** Origins (like `http://localhost:8787`) allowed to read files from script; no others get CORS. */
  allowedOrigins: readonly string[]
  /**
   * Whether versioned paths are cached forever. True for published builds; false when a dev
   * watcher rebuilds the same version in place and the browser must revalidate.
   */
  immutable?: boolean
  /**
   * The runtime's brotli (Node's zlib, given by node.ts): text then goes out brotli to a browser
   * that takes it, as CDNs send it. Without it, gzip (the web's CompressionStream) only.
   */
  brotli?: (body: Uint8Array) => Promise<Uint8Array>
}

export const IMMUTABLE = 'public, max-age=31536000, immutable'
export const REVALIDATE = 'no-cache'
const ALLOWED_METHODS = 'GET, HEAD, OPTIONS'

/** Splits a URL path into decoded segments, or null when one could climb out of the root. */
export function parseFilePath(pathname: string): string[] | null {
  const raw = pathname.split('/').slice(1)
  const segments: string[] = []
  for (const part of raw) {
    let segment: string
    try {
      segment = decodeURIComponent(part)
    } catch {
      // A malformed escape cannot name a file; it is refused like a traversal.
      return null
    }
    if (segment === '' || segment === '.' || segment === '..') return null
    if (/[/\\\0]/.test(segment)) return null
    segments.push(segment)
  }
  return segments.length === 0 ? null : segments
}

/** Whether a file sits under `/<name>/<semver>/`, where content never changes once published. */
export function isVersionedPath(segments: readonly string[]): boolean {
  return (
    segments.length >= 3 &&
    remoteNameSchema.safeParse(segments[0]).success &&
    semverSchema.safeParse(segments[1]).success
  )
}

async function entityTag(body: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', body as Uint8Array<ArrayBuffer>)
  const hex = [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('')
  return `"${hex.slice(0, 32)}"`
}

/** `If-None-Match` comparison: weak, over a comma-separated list, `*` matching anything. */
function matchesEntityTag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  return header
    .split(',')
    .map((candidate) => candidate.trim().replace(/^W\//, ''))
    .some((candidate) => candidate === '*' || candidate === etag)
}

/** Content types worth compressing: scripts, styles, JSON (the descriptor), HTML, SVG. */
const COMPRESSIBLE = /^(?:text\/|application\/json|image\/svg\+xml)/

/** What the cdn compresses text with, best first. */
export type CdnEncoding = 'br' | 'gzip'

/**
 * The encoding `Accept-Encoding` takes among `offered` (best first): the highest q-value above 0,
 * named or by `*`, ties going to the order of `offered` (browsers list `gzip, deflate, br` at one
 * q-value, and brotli is smaller). Null for the identity.
 */
export function acceptedEncoding(
  header: string | undefined,
  offered: readonly CdnEncoding[],
): CdnEncoding | null {
  if (header === undefined) return null
  const q = new Map<string, number>()
  for (const range of header.split(',')) {
    const [name = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase())
    const qParam = params.find((param) => param.startsWith('q='))
    q.set(name, qParam === undefined ? 1 : Number(qParam.slice(2)))
  }
  let best: { encoding: CdnEncoding; q: number } | null = null
  for (const encoding of offered) {
    const value = q.get(encoding) ?? q.get('*') ?? 0
    if (value > 0 && (best === null || value > best.q)) best = { encoding, q: value }
  }
  return best?.encoding ?? null
}

/** Compressed bodies by entity tag and encoding: a file's bytes are compressed once while they stay the same. */
const compressedCache = new Map<string, Promise<Uint8Array>>()

function compressed(
  key: string,
  body: Uint8Array,
  compress: (body: Uint8Array) => Promise<Uint8Array>,
): Promise<Uint8Array> {
  const found = compressedCache.get(key)
  if (found !== undefined) return found
  if (compressedCache.size >= 500) compressedCache.delete(compressedCache.keys().next().value ?? '')
  const result = compress(body)
  compressedCache.set(key, result)
  return result
}

const gzip = (body: Uint8Array): Promise<Uint8Array> =>
  readAll(
    new Blob([body as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('gzip')),
  )

/** Every byte of a stream (by hand: under @hono/node-server `Response` is a lighter class). */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  for await (const chunk of stream) chunks.push(chunk)
  const all = new Uint8Array(chunks.reduce((length, chunk) => length + chunk.byteLength, 0))
  chunks.reduce((offset, chunk) => (all.set(chunk, offset), offset + chunk.byteLength), 0)
  return all
}

/**
 * The cdn stand-in: a static origin for published remote builds. Web-standard only (the files
 * come through `CdnFiles`), so it runs under Node, Workers or Deno alike.
 */
export function createCdnApp(options: CdnOptions): Hono {
  const allowed = new Set(options.allowedOrigins)
  const immutable = options.immutable ?? true
  const app = new Hono()

  // Responses differ by Origin whether or not this one is allowed, so caches must key on it.
  app.use('*', async function corsHeaders(c, next) {
    await next()
    c.res.headers.append('Vary', 'Origin')
    const origin = c.req.header('Origin')
    if (origin !== undefined && allowed.has(origin)) {
      c.res.headers.set('Access-Control-Allow-Origin', origin)
    }
    c.res.headers.set('X-Content-Type-Options', 'nosniff')
  })

  const fail = (c: Context, code: ErrorCode, headers: Record<string, string> = {}) =>
    c.json(
      {
        error: { code, message: errorCatalogue[code].message, requestId: crypto.randomUUID() },
      },
      errorCatalogue[code].status as ContentfulStatusCode,
      { 'Cache-Control': REVALIDATE, ...headers },
    )

  app.options('*', (c) => {
    const origin = c.req.header('Origin')
    const headers: Record<string, string> = { Allow: ALLOWED_METHODS }
    if (origin !== undefined && allowed.has(origin)) {
      headers['Access-Control-Allow-Methods'] = ALLOWED_METHODS
      headers['Access-Control-Max-Age'] = '600'
      const requested = c.req.header('Access-Control-Request-Headers')
      if (requested !== undefined) headers['Access-Control-Allow-Headers'] = requested
    }
    return c.body(null, 204, headers)
  })

  // Hono answers HEAD with this handler and drops the body, keeping every header.
  app.get('*', async (c) => {
    const segments = parseFilePath(new URL(c.req.url).pathname)
    if (segments === null) return fail(c, 'not_found')
    const body = await options.files.read(segments)
    if (body === null) return fail(c, 'not_found')

    const contentType = contentTypeFor(segments[segments.length - 1] ?? '')
    const rawTag = await entityTag(body)
    // Text goes out compressed to a browser that takes it, as a CDN in front of storage does:
    // brotli where the runtime has it, else gzip.
    const encoding = COMPRESSIBLE.test(contentType)
      ? acceptedEncoding(
          c.req.header('Accept-Encoding'),
          options.brotli ? ['br', 'gzip'] : ['gzip'],
        )
      : null
    const etag = encoding === null ? rawTag : `${rawTag.slice(0, -1)}-${encoding}"`
    const headers: Record<string, string> = {
      'Content-Type': contentType,
      'Cache-Control': immutable && isVersionedPath(segments) ? IMMUTABLE : REVALIDATE,
      ETag: etag,
    }
    if (COMPRESSIBLE.test(contentType)) headers.Vary = 'Accept-Encoding'
    if (encoding !== null) headers['Content-Encoding'] = encoding
    if (matchesEntityTag(c.req.header('If-None-Match'), etag)) return c.body(null, 304, headers)
    const sent =
      encoding === null
        ? body
        : await compressed(etag, body, encoding === 'br' ? options.brotli! : gzip)
    return c.body(sent as Uint8Array<ArrayBuffer>, 200, {
      ...headers,
      'Content-Length': String(sent.byteLength),
    })
  })

  app.all('*', (c) => fail(c, 'method_not_allowed', { Allow: ALLOWED_METHODS }))

  return app
}
