import type { MiddlewareHandler } from 'hono'
import { gzip, preferredEncoding, varyOnEncoding } from '../content-encoding.ts'

/**
 * Gzips a JSON answer of at least `thresholdBytes` for a browser that takes gzip. Mounted on the
 * routes whose answers grow with the data (a conversation, the registry, the console), not on
 * small hot ones like `/api/me`, where compressing would cost more time than it saves bytes.
 * Streams (SSE) are never touched: only `application/json` is.
 */
export function compressJson(options: { thresholdBytes?: number } = {}): MiddlewareHandler {
  const threshold = options.thresholdBytes ?? 1024
  return async function compressJson(c, next) {
    await next()
    const response = c.res
    if (
      c.req.method === 'HEAD' ||
      response.headers.has('content-encoding') ||
      !(response.headers.get('content-type') ?? '').startsWith('application/json')
    ) {
      return
    }
    varyOnEncoding(response.headers)
    if (preferredEncoding(c, ['gzip']) !== 'gzip') return
    const text = await response.text()
    const headers = new Headers(response.headers)
    // The old answer's headers are all in `headers`: unset it first, or Hono merges them again.
    c.res = undefined
    if (text.length < threshold) {
      c.res = new Response(text, { status: response.status, headers })
      return
    }
    const body = await gzip(text)
    headers.set('Content-Encoding', 'gzip')
    headers.set('Content-Length', String(body.byteLength))
    c.res = new Response(body, { status: response.status, headers })
  }
}
