import { ApiError } from '@tessera/contracts'
import type { Context, MiddlewareHandler } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import type { CookieOptions } from 'hono/utils/cookie'
import type { AppEnv } from '../app-env.ts'
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
  return async function sessionCookie(c, next) {
    const cookie = getCookie(c, name, options.secure ? 'host' : undefined)
    let loaded: Promise<ResumeResult> | undefined
    let stale = false
    let written = false
    const load = (): Promise<ResumeResult> => {
      loaded ??= (
        cookie === undefined
          ? Promise.resolve<ResumeResult>({ state: 'unknown' })
          : options.sessions.resume(cookie, {
              // Read only when the session is looked up (not when it is kept in memory, as it is
              // on most requests): resolving a client's address costs more than the rest here.
              get ip() {
                return options.clientKey?.(c)
              },
            })
      ).then((result) => {
        if (result.state !== 'active' && cookie !== undefined) stale = true
        return result
      })
      return loaded
    }
    c.set('auth', {
      async current() {
        const result = await load()
        return result.state === 'active' ? result.session : null
      },
      async require() {
        const result = await load()
        if (result.state === 'active') return result.session
        throw new ApiError(
          result.state === 'revoked'
            ? 'session_revoked'
            : result.state === 'expired'
              ? 'session_expired'
              : 'unauthenticated',
        )
      },
      async ended() {
        const { state } = await load()
        return state === 'revoked' || state === 'expired' ? state : null
      },
      signIn(token) {
        written = true
        setCookie(c, name, token, { ...attributes, maxAge: options.maxAgeSeconds })
      },
      signOut() {
        written = true
        deleteCookie(c, name, attributes)
      },
    })
    await next()
    if (stale && !written) deleteCookie(c, name, attributes)
  }
}
