import type { RegistrySnapshot } from '@tessera/contracts'
import type { Context, MiddlewareHandler } from 'hono'
import type { AppEnv } from './app-env.ts'
import { preferredEncoding, varyOnEncoding } from './content-encoding.ts'
import { buildHostCsp, remoteOrigins } from './csp.ts'

/** The built host, as the runtime entry provides it (files on disk under Node). */
export interface HostAssets {
  /** The host's index.html, or null when the host is not built. */
  indexHtml(): Promise<string | null>
  /** A response for a static file of the host, or null when there is none at this path. */
  serve(c: Context): Promise<Response | null>
}

export const isApiPath = (path: string): boolean => path === '/api' || path.startsWith('/api/')

/**
 * Whether a request's `Accept` names JSON and nothing else (a script asking an API): such a
 * request gets the JSON `not_found`, every other one (a browser, `curl -I`, an uptime probe that
 * sends no `Accept` or `*\/*`) gets the page.
 */
export function acceptsOnlyJson(accept: string | undefined): boolean {
  const types = (accept ?? '')
    .split(',')
    .map((range) => range.split(';')[0]?.trim().toLowerCase() ?? '')
    .filter((type) => type !== '')
  return (
    types.length > 0 && types.every((type) => type === 'application/json' || type.endsWith('+json'))
  )
}

/**
 * A path that names a file (`/assets/…`, or a last segment with an extension) is never a client
 * route: a missing script answers 404, not a page the browser would refuse to run.
 */
const namesAFile = (path: string): boolean =>
  path.startsWith('/assets/') ||
  (/\.[A-Za-z0-9]+$/.test(path.slice(path.lastIndexOf('/') + 1)) && !path.endsWith('/index.html'))

const isPageRequest = (c: Context): boolean =>
  (c.req.method === 'GET' || c.req.method === 'HEAD') && !isApiPath(c.req.path)

/** Serves the host's static files; index.html is left to `hostPage`, which adds the CSP. */
export function hostAssets(options: { assets?: HostAssets }): MiddlewareHandler<AppEnv> {
  return async function hostAssets(c, next) {
    const { assets } = options
    const path = c.req.path
    if (
      assets === undefined ||
      !isPageRequest(c) ||
      path.endsWith('/') ||
      path.endsWith('/index.html')
    ) {
      return next()
    }
    const response = await assets.serve(c)
    return response ?? next()
  }
}

/**
 * The host page for a client route (any GET or HEAD outside /api but a JSON-only one), with the CSP that
 * lets it load this viewer's remotes: the origins of their snapshot (canaries they may be served,
 * fallbacks, this browser's overrides), so no other origin can run code in the page. Null when
 * this request is not one, or the host is not built.
 */
export async function hostPage(
  c: Context<AppEnv>,
  deps: { assets?: HostAssets; readSnapshot: () => Promise<RegistrySnapshot> },
): Promise<Response | null> {
  if (deps.assets === undefined || !isPageRequest(c)) return null
  if (acceptsOnlyJson(c.req.header('accept')) || namesAFile(c.req.path)) return null
  const html = await deps.assets.indexHtml()
  if (html === null) return null
  const csp = buildHostCsp(remoteOrigins(await deps.readSnapshot()))
  const headers = new Headers({
    'Content-Type': 'text/html; charset=UTF-8',
    'Content-Security-Policy': csp,
    'Cache-Control': 'no-cache',
    // The policy depends on the viewer's cookies (overrides, canary share): never share one copy.
    Vary: 'Cookie',
  })
  varyOnEncoding(headers)
  if (preferredEncoding(c, ['gzip']) === 'gzip') {
    const body = await gzipped(html)
    headers.set('Content-Encoding', 'gzip')
    headers.set('Content-Length', String(body.byteLength))
    return new Response(body, { status: 200, headers })
  }
  return new Response(html, { status: 200, headers })
}

/** The page's gzip bytes, made once per text of index.html (it changes only with a new build). */
let lastGzip: { html: string; body: Promise<Uint8Array<ArrayBuffer>> } | null = null

function gzipped(html: string): Promise<Uint8Array<ArrayBuffer>> {
  if (lastGzip?.html !== html) {
    const stream = new Blob([html]).stream().pipeThrough(new CompressionStream('gzip'))
    lastGzip = { html, body: readAll(stream) }
  }
  return lastGzip.body
}

/**
 * Every byte of a stream. Read by hand: under @hono/node-server the global `Response` is its own
 * lighter class, whose body readers do not take a stream.
 */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = []
  let length = 0
  for await (const chunk of stream) {
    chunks.push(chunk)
    length += chunk.byteLength
  }
  const all = new Uint8Array(length)
  let offset = 0
  for (const chunk of chunks) {
    all.set(chunk, offset)
    offset += chunk.byteLength
  }
  return all
}
