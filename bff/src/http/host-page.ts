import {
  CONTRACT_MAJOR,
  openToVisitors,
  remoteOwning,
  signInRemoteOf,
  type InlinedReads,
  type RegistrySnapshot,
} from '@tessera/contracts'
import type { Context, MiddlewareHandler, Next } from 'hono'
import type { AppEnv } from './app-env.ts'
import { gzip, preferredEncoding, varyOnEncoding } from './content-encoding.ts'
import { buildHostCsp, inlineScriptHashes, remoteOrigins } from './csp.ts'
import { answerFirstReads, firstReadsBlock } from './first-reads.ts'

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
  const serve = async (c: Context<AppEnv>, next: Next, assets: HostAssets) =>
    (await assets.serve(c)) ?? next()
  // Not async: an API request (most of them) passes on without a promise of its own.
  return function hostAssets(c, next) {
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
    return serve(c, next, assets)
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
  deps: {
    assets?: HostAssets
    /** What this viewer may be served (every canary, every remote): the CSP allows all of it. */
    readSnapshot: () => Promise<RegistrySnapshot>
    /** What anyone is served (no remote for operators only): the preload hints come from it. */
    readPublicSnapshot?: () => Promise<RegistrySnapshot>
    /** The request carries no session cookie: nobody is signed in (see `routeHints`). */
    signedOut?: boolean
    /**
     * The BFF's own answer to a GET of an API path, asked with this page request's cookies: the
     * page's first reads are answered in it (first-reads.ts) rather than preloaded.
     */
    read?: (path: string) => Promise<Response>
  },
): Promise<Response | null> {
  if (deps.assets === undefined || !isPageRequest(c)) return null
  if (acceptsOnlyJson(c.req.header('accept')) || namesAFile(c.req.path)) return null
  const template = await deps.assets.indexHtml()
  if (template === null) return null
  const snapshot = await deps.readSnapshot()
  const csp = buildHostCsp(remoteOrigins(snapshot), await scriptHashesOf(template))
  const hinted = deps.readPublicSnapshot === undefined ? snapshot : await deps.readPublicSnapshot()
  // Only a page that asks for them (a host that loads remote code) gets the route's hints.
  const hints = template.includes(ROUTE_HINTS_MARKER)
    ? routeHints(c.req.path, hinted, { signedOut: deps.signedOut })
    : []
  // A HEAD has no body to carry them in.
  const { answers, cookies } =
    deps.read === undefined || c.req.method !== 'GET'
      ? { answers: {}, cookies: [] }
      : await answerFirstReads(
          [
            ...headReadsOf(template),
            ...hints.flatMap((hint) => (hint.rel === 'fetch' ? [hint.href] : [])),
          ],
          deps.read,
        )
  const answered = Object.keys(answers).length > 0
  // A read answered in the page is no longer hinted, in the page or in the Link header.
  const unanswered = hints.filter(
    (hint) => !(hint.rel === 'fetch' && Object.hasOwn(answers, hint.href)),
  )
  const html = withFirstReads(withRouteHints(template, unanswered), answers)
  const headers = new Headers({
    'Content-Type': 'text/html; charset=UTF-8',
    'Content-Security-Policy': csp,
    // The policy and the answers depend on the viewer's cookies: no cache keeps one for another.
    'Cache-Control': 'private, no-cache',
    Vary: 'Cookie',
  })
  for (const cookie of cookies) headers.append('Set-Cookie', cookie)
  const link = linkHeader(template, unanswered, answers)
  if (link !== '') headers.set('Link', link)
  varyOnEncoding(headers)
  if (preferredEncoding(c, ['gzip']) === 'gzip') {
    // A page with answers is this viewer's alone: made for this response, not kept.
    const body = answered ? await gzip(html) : await gzipped(html)
    headers.set('Content-Encoding', 'gzip')
    headers.set('Content-Length', String(body.byteLength))
    return new Response(body, { status: 200, headers })
  }
  return new Response(html, { status: 200, headers })
}

/** The inline scripts' hashes of the host's page, worked out once per text of it. */
let hashedTemplate: { html: string; hashes: Promise<string[]> } | null = null
function scriptHashesOf(html: string): Promise<string[]> {
  if (hashedTemplate?.html !== html) hashedTemplate = { html, hashes: inlineScriptHashes(html) }
  return hashedTemplate.hashes
}

/**
 * A `<link>` the page carries so the browser fetches a file before the host asks for it: a module
 * script, or a stylesheet fetched as the code that adds it will ask for it (a hint in another CORS
 * mode is not reused, and the file is fetched twice).
 */
export interface PreloadHint {
  /** `fetch`: an API read of the page (`firstReads`), asked with the session's cookie. */
  rel: 'modulepreload' | 'preload' | 'fetch'
  href: string
  /** A stylesheet Vite's preload helper adds (a route chunk's): it asks in CORS mode. */
  cors?: true
}

/**
 * What the remote of the requested route needs first: its `remoteEntry.js` and the files its
 * descriptor lists to preload (the exposed module and its static imports, their CSS), then what
 * its pages load next (`routePreload`: the lazy route chunks, which the plugin would otherwise
 * ask for only once it runs). In the
 * page, they download alongside the host's own scripts instead of after the host has run, read
 * `/api/remotes` and imported the entry. Only the remote whose base path holds `path` (`/` and
 * unknown paths get none); none for a remote served on its canary channel here, as the page's
 * snapshot puts the viewer in every canary (for the CSP) while `/api/remotes` will give most
 * viewers the stable version; only files on the entry's origin, like the host's own hints
 * (features/remotes/preload-links.ts), which these match so the browser reuses them.
 *
 * `signedOut` (the request has no session cookie): a page that needs a session sends the visitor
 * to the sign-in page (the host's route guard, by the contracts' `openToVisitors`), so that page's
 * files are hinted instead. With a session cookie (`signedOut: false`), the remote's `firstReads`
 * are hinted too: the page's data downloads with its code (a read that answers 401 is what the
 * page would have been told anyway).
 */
export function routeHints(
  path: string,
  snapshot: Pick<RegistrySnapshot, 'remotes'>,
  options: { signedOut?: boolean } = {},
): PreloadHint[] {
  let remote = remoteOwning(path, snapshot.remotes)
  if (options.signedOut === true && remote !== undefined) {
    if (!openToVisitors(remote, path, snapshot.remotes)) remote = signInRemoteOf(snapshot.remotes)
  }
  if (remote === undefined || remote.channel === 'canary' || remote.contract !== CONTRACT_MAJOR) {
    return []
  }
  const entry = safeUrl(remote.entryUrl)
  if (entry === null) return []
  const hints: PreloadHint[] = [{ rel: 'modulepreload', href: entry.href }]
  const add = (files: readonly string[], cssCors: boolean) => {
    for (const raw of files) {
      const url = safeUrl(raw)
      if (url === null || url.origin !== entry.origin) continue
      if (url.pathname.endsWith('.js')) hints.push({ rel: 'modulepreload', href: url.href })
      else if (url.pathname.endsWith('.css'))
        hints.push({ rel: 'preload', href: url.href, ...(cssCors ? { cors: true as const } : {}) })
    }
  }
  // originjs adds the exposed module's stylesheets as plain links; Vite's preload helper adds a
  // route chunk's with `crossorigin`.
  add(remote.preload ?? [], false)
  add(remote.routePreload ?? [], true)
  if (options.signedOut === false)
    for (const read of remote.firstReads ?? []) hints.push({ rel: 'fetch', href: read })
  return hints
}

/** An http(s) URL, or null for anything else (a hint is never worth a doubtful URL). */
function safeUrl(raw: string): URL | null {
  if (!URL.canParse(raw)) return null
  const url = new URL(raw)
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : null
}

const escapeAttribute = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * The comment by which a host page asks for the hints: a federated host's index.html carries it
 * (a build that loads no remote code, like the monolith the benchmarks compare with, does not).
 */
export const ROUTE_HINTS_MARKER = '<!-- tessera:route-hints -->'

/**
 * The page with the hints at the end of its head, after the host's own scripts (so the browser
 * asks for those first), and without the marker. Module scripts load in CORS mode, so their hints
 * say `crossorigin`; a stylesheet's says it when the code that adds it will (`cors`). No inline
 * script: the CSP stays as it is (the remotes' origins are already in script-src and style-src).
 */
export function withRouteHints(html: string, hints: readonly PreloadHint[]): string {
  const at = html.indexOf(ROUTE_HINTS_MARKER)
  if (at === -1) return html
  const page = `${html.slice(0, at)}${html.slice(at + ROUTE_HINTS_MARKER.length)}`
  const end = page.indexOf('</head>')
  if (hints.length === 0 || end === -1) return page
  const links = hints
    .map((hint) =>
      hint.rel === 'modulepreload'
        ? `<link rel="modulepreload" crossorigin href="${escapeAttribute(hint.href)}">`
        : hint.rel === 'fetch'
          ? `<link rel="preload" as="fetch" crossorigin="use-credentials" href="${escapeAttribute(hint.href)}">`
          : `<link rel="preload" as="style"${hint.cors === true ? ' crossorigin' : ''} href="${escapeAttribute(hint.href)}">`,
    )
    .join('')
  return `${page.slice(0, end)}${links}${page.slice(end)}`
}

/** A `<link>` or module `<script>` of the host's own head, as the page asks for its file. */
interface PageFile {
  href: string
  /** `rel` and its parameters, as a `Link` header writes them (`rel=modulepreload`). */
  params: string
}

/**
 * The files the host's page asks for from its head, on its own origin: its module script and
 * modulepreloads, its stylesheet, its API reads, each in the mode the page asks in (a hint in
 * another mode would not be reused). Read once per text of the page.
 */
function pageFilesOf(template: string): PageFile[] {
  if (pageFiles?.template === template) return pageFiles.files
  const head = template.slice(0, Math.max(0, template.indexOf('</head>')))
  const files: PageFile[] = []
  for (const [, tag = '', attributes = ''] of head.matchAll(/<(link|script)\b([^>]*)>/gi)) {
    const attribute = (name: string) => attributeOf(attributes, name)
    const href = tag.toLowerCase() === 'script' ? attribute('src') : attribute('href')
    // Same-origin paths only (`/assets/…`, `/api/me`): never another origin's, never `//host`.
    if (href === undefined || !href.startsWith('/') || href.startsWith('//')) continue
    const crossorigin = attribute('crossorigin')
    const cors =
      crossorigin === undefined ? '' : `; crossorigin${crossorigin === '' ? '' : `=${crossorigin}`}`
    const rel = attribute('rel')
    if (tag.toLowerCase() === 'script') {
      if (attribute('type') === 'module') files.push({ href, params: 'rel=modulepreload' })
    } else if (rel === 'modulepreload') files.push({ href, params: 'rel=modulepreload' })
    else if (rel === 'stylesheet') files.push({ href, params: `rel=preload; as=style${cors}` })
    else if (rel === 'preload' && attribute('as') === 'fetch')
      files.push({ href, params: `rel=preload; as=fetch${cors}` })
  }
  pageFiles = { template, files }
  return files
}
let pageFiles: { template: string; files: PageFile[] } | null = null

/** An attribute's value in a tag's attribute text (`''` for one without a value), if it has it. */
function attributeOf(attributes: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}(?:="([^"]*)")?(?=[\\s/]|$)`, 'i').exec(attributes)
  return match === null ? undefined : (match[1] ?? '')
}

/** The API reads the host's page preloads from its head (`/api/me`, `/api/remotes`). */
const headReadsOf = (template: string): string[] =>
  pageFilesOf(template)
    .filter(({ href, params }) => params.includes('as=fetch') && isApiPath(href.split('?')[0]!))
    .map(({ href }) => href)

/**
 * The page without the head's preloads of `answered` reads, with their answers in a JSON block at
 * the end of its head (the host takes them from there: first-reads.ts).
 */
export function withFirstReads(html: string, answers: InlinedReads): string {
  const answered = new Set(Object.keys(answers))
  if (answered.size === 0) return html
  const end = html.indexOf('</head>')
  if (end === -1) return html
  const head = html
    .slice(0, end)
    .replace(/<link\b([^>]*)>/gi, (tag, attributes: string) =>
      attributeOf(attributes, 'as') === 'fetch' &&
      answered.has(attributeOf(attributes, 'href') ?? '')
        ? ''
        : tag,
    )
  return `${head}${firstReadsBlock(answers)}${html.slice(end)}`
}

/**
 * The page's first files as a `Link` header: the host's own (its head) and the route's hints, so
 * the browser starts them as soon as the response's head arrives, before it has parsed a byte of
 * the page, and a CDN in front may send them ahead as 103 Early Hints. The page keeps its
 * `<link>`s for whatever drops the header; either way each file is fetched once.
 */
export function linkHeader(
  template: string,
  hints: readonly PreloadHint[],
  /** Reads answered in the page: the head's preloads of them are not named. */
  answers: InlinedReads = {},
): string {
  const files: PageFile[] = pageFilesOf(template).filter(
    ({ href }) => !Object.hasOwn(answers, href),
  )
  for (const hint of hints) {
    const params =
      hint.rel === 'modulepreload'
        ? 'rel=modulepreload'
        : hint.rel === 'fetch'
          ? 'rel=preload; as=fetch; crossorigin=use-credentials'
          : `rel=preload; as=style${hint.cors === true ? '; crossorigin' : ''}`
    files.push({ href: hint.href, params })
  }
  // The code first (the longest downloads, React's above all), then the styles, then the reads.
  const order = ({ params }: PageFile) =>
    params === 'rel=modulepreload' ? 0 : params.includes('as=style') ? 1 : 2
  return files
    .sort((a, b) => order(a) - order(b))
    .map(({ href, params }) => `<${href}>; ${params}`)
    .join(', ')
}

/**
 * The page's gzip bytes, made once per text: one per remote's hints (and one without), which
 * change only with a new build or a new version in the registry; the oldest text goes first.
 */
const gzipCache = new Map<string, Promise<Uint8Array<ArrayBuffer>>>()
const GZIP_CACHE_SIZE = 32

function gzipped(html: string): Promise<Uint8Array<ArrayBuffer>> {
  const cached = gzipCache.get(html)
  if (cached !== undefined) return cached
  const body = gzip(html)
  gzipCache.set(html, body)
  if (gzipCache.size > GZIP_CACHE_SIZE) gzipCache.delete(gzipCache.keys().next().value!)
  return body
}
