// Node-only: read by node.ts, never by app.ts.
import { createReadStream } from 'node:fs'
import type { Stats } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { join, resolve, sep } from 'node:path'
import { createStreamBody } from '@hono/node-server/utils/stream'
import { getMimeType } from 'hono/utils/mime'
import type { Context } from 'hono'
import { preferredEncoding, varyOnEncoding, type ContentEncoding } from './content-encoding.ts'
import type { HostAssets } from './host-page.ts'

const missing = new Set(['ENOENT', 'ENOTDIR'])

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && missing.has(String(error.code))
}

/** The file under `root` for a URL path, or null for anything that could step outside it. */
export function fileForPath(root: string, urlPath: string): string | null {
  let decoded: string
  try {
    decoded = decodeURIComponent(urlPath)
  } catch {
    // A malformed escape names no file; the request falls through to not_found.
    return null
  }
  const segments = decoded.split('/').slice(1)
  const unsafe = segments.some(
    (segment) => segment === '' || segment === '.' || segment === '..' || /[\\\0]/.test(segment),
  )
  if (unsafe) return null
  const file = resolve(root, ...segments)
  return file.startsWith(root + sep) ? file : null
}

/** The file's size and time, or null when it is not a file. */
async function fileStats(file: string): Promise<Stats | null> {
  try {
    const stats = await stat(file)
    return stats.isFile() ? stats : null
  } catch (error) {
    if (isMissing(error)) return null
    throw error
  }
}

/** Text the browser would download raw otherwise: scripts, styles, pages, data, SVG. */
const compressible = (file: string): boolean => /\.(?:js|mjs|css|html|json|svg|txt|map)$/.test(file)

/** The precompressed copy of `file` this request accepts, best first; null when none is there. */
async function compressedCopy(
  c: Context,
  file: string,
): Promise<{ file: string; stats: Stats; encoding: ContentEncoding } | null> {
  const offered: ContentEncoding[] = ['br', 'gzip']
  while (offered.length > 0) {
    const encoding = preferredEncoding(c, offered)
    if (encoding === null) return null
    const copy = `${file}.${encoding === 'br' ? 'br' : 'gz'}`
    const stats = await fileStats(copy)
    if (stats !== null) return { file: copy, stats, encoding }
    offered.splice(offered.indexOf(encoding), 1)
  }
  return null
}

/**
 * The built host on disk. Files under /assets/ have content hashes in their names, so they are
 * cached for a year; everything else (and index.html, served by the app) is revalidated. Text
 * files go out as their precompressed copy when the browser accepts it (no compression per request).
 */
export function createHostDist(dir: string): HostAssets {
  const root = resolve(dir)
  return {
    async indexHtml() {
      try {
        return await readFile(join(root, 'index.html'), 'utf8')
      } catch (error) {
        if (isMissing(error)) return null
        throw error
      }
    },
    async serve(c) {
      const file = fileForPath(root, c.req.path)
      if (file === null) return null
      const raw = await fileStats(file)
      if (raw === null) return null
      // The build wrote `.br` and `.gz` copies of text files beside them (host/precompress.ts).
      const compressed = compressible(file) ? await compressedCopy(c, file) : null
      const sent = compressed ?? { file, stats: raw, encoding: null }
      const headers = new Headers({
        'Content-Type': getMimeType(file) ?? 'application/octet-stream',
        'Content-Length': String(sent.stats.size),
        'Last-Modified': raw.mtime.toUTCString(),
        'Cache-Control': c.req.path.startsWith('/assets/')
          ? 'public, max-age=31536000, immutable'
          : 'no-cache',
      })
      if (sent.encoding !== null) headers.set('Content-Encoding', sent.encoding)
      if (compressible(file)) varyOnEncoding(headers)
      const body = c.req.method === 'HEAD' ? null : createStreamBody(createReadStream(sent.file))
      return new Response(body, { status: 200, headers })
    },
  }
}
