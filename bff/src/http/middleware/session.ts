import { ApiError } from '@tessera/contracts'
import type { Context, MiddlewareHandler } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import type { CookieOptions } from 'hono/utils/cookie'
import type { AppEnv, RequestAuth } from '../app-env.ts'
import type { ResumeResult, Sessions } from '../../modules/identity/sessions.ts'

export interface SessionCookieOptions {
  sessions: Sessions
  /** `__Host-` prefix and `Secure`, for a BFF served over https. */
  secure: boolean
  maxAgeSeconds: number
  name?: string
  /** The client's address, kept as where the session was last seen (sessions list). */
  clientKey?: ((c: Context<AppEnv>) => string | undefined) | undefined
}

/** The cookie's name as the browser stores it. */
export function sessionCookieName(options: { secure: boolean; name?: string }): string {
  const name = options.name ?? 'tessera_session'
  return options.secure ? `__Host-${name}` : name
}

/** Cookie headers kept per middleware, at most; all are dropped when it is reached. */
const COOKIE_VALUES_MAX = 1024
/** Longer Cookie headers are parsed every time, so the kept ones stay small (≤ 1 MB in all). */
const COOKIE_HEADER_KEPT_MAX = 1024

/**
 * `getCookie(c, name, prefix)`, kept per Cookie header (a browser sends the same one again and
 * again): the same parse, done once per header instead of on every request.
 */
function cookieReader(name: string, prefix: 'host' | undefined) {
  const values = new Map<string, string | undefined>()
  return function readCookie(c: Context): string | undefined {
    const header = c.req.header('cookie')
    if (header === undefined) return undefined
    if (header.length > COOKIE_HEADER_KEPT_MAX) return getCookie(c, name, prefix)
    if (values.has(header)) return values.get(header)
    const value = getCookie(c, name, prefix)
    if (values.size >= COOKIE_VALUES_MAX) values.clear()
    values.set(header, value)
    return value
  }
}

/**
 * A request's `c.var.auth`: one object with its methods on the prototype, so a request makes no
 * closures (they cost more than the session lookup itself when the sessions cache answers).
 */
class CookieAuth implements RequestAuth {
  #loaded: Promise<ResumeResult> | undefined
  /** The cookie named no usable session: it is removed from the browser after the route. */
  stale = false
  /** The route signed in or out: it set the cookie itself. */
  written = false

  private readonly c: Context<AppEnv>
  private readonly cookie: string | undefined
  private readonly options: SessionCookieOptions
  private readonly name: string
  private readonly attributes: CookieOptions

  constructor(
    c: Context<AppEnv>,
    cookie: string | undefined,
    options: SessionCookieOptions,
    name: string,
    attributes: CookieOptions,
  ) {
    this.c = c
    this.cookie = cookie
    this.options = options
    this.name = name
    this.attributes = attributes
  }

  /** The client's address, read by the sessions only when they look the session up. */
  get ip(): string | undefined {
    return this.options.clientKey?.(this.c)
  }

  #load(): Promise<ResumeResult> {
    this.#loaded ??= this.#resume()
    return this.#loaded
  }

  async #resume(): Promise<ResumeResult> {
    if (this.cookie === undefined) return { state: 'unknown' }
    // `this` as the context: its `ip` is worked out only when the session is looked up (not when
    // it is kept in memory, as it is on most requests), a client's address costing more than the
    // rest here.
    const result = await this.options.sessions.resume(this.cookie, this)
    if (result.state !== 'active') this.stale = true
    return result
  }

  async current() {
    const result = await this.#load()
    return result.state === 'active' ? result.session : null
  }

  async require() {
    const result = await this.#load()
    if (result.state === 'active') return result.session
    throw new ApiError(
      result.state === 'revoked'
        ? 'session_revoked'
        : result.state === 'expired'
          ? 'session_expired'
          : 'unauthenticated',
    )
  }

  async ended() {
    const { state } = await this.#load()
    return state === 'revoked' || state === 'expired' ? state : null
  }

  signIn(token: string) {
    this.written = true
    setCookie(this.c, this.name, token, { ...this.attributes, maxAge: this.options.maxAgeSeconds })
  }

  signOut() {
    this.written = true
    deleteCookie(this.c, this.name, this.attributes)
  }
}

/**
 * Reads the opaque session cookie (HttpOnly, SameSite=Lax, Path=/; Secure and `__Host-` over
 * https) and gives the request `c.var.auth`. The session is looked up only when a route asks, and
 * a cookie naming no usable session is removed from the browser.
 */
export function sessionCookie(options: SessionCookieOptions): MiddlewareHandler<AppEnv> {
  const name = options.name ?? 'tessera_session'
  const attributes: CookieOptions = {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/',
    ...(options.secure ? { prefix: 'host', secure: true } : {}),
  }
  const readCookie = cookieReader(name, options.secure ? 'host' : undefined)
  return async function sessionCookie(c, next) {
    const auth = new CookieAuth(c, readCookie(c), options, name, attributes)
    c.set('auth', auth)
    await next()
    if (auth.stale && !auth.written) deleteCookie(c, name, attributes)
  }
}
