// Node-only: read by node.ts, never by app.ts.
import { createReadStream } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { join, resolve, sep } from 'node:path'
import { createStreamBody } from '@hono/node-server/utils/stream'
import { getMimeType } from 'hono/utils/mime'
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

/**
 * The built host on disk. Files under /assets/ have content hashes in their names, so they are
 * cached for a year; everything else (and index.html, served by the app) is revalidated.
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
      let size: number
      let modified: Date
      try {
        const stats = await stat(file)
        if (!stats.isFile()) return null
        size = stats.size
        modified = stats.mtime
      } catch (error) {
        if (isMissing(error)) return null
        throw error
      }
      const headers = new Headers({
        'Content-Type': getMimeType(file) ?? 'application/octet-stream',
        'Content-Length': String(size),
        'Last-Modified': modified.toUTCString(),
        'Cache-Control': c.req.path.startsWith('/assets/')
          ? 'public, max-age=31536000, immutable'
          : 'no-cache',
      })
      const body = c.req.method === 'HEAD' ? null : createStreamBody(createReadStream(file))
      return new Response(body, { status: 200, headers })
    },
  }
}
