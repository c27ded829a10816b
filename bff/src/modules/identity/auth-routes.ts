import {
  confirmBodySchema,
  emailLinkBodySchema,
  signInBodySchema,
  signOutBodySchema,
  signUpBodySchema,
} from '@tessera/contracts'
import type { AuthEventName, ConfirmType, SignedIn, SignInMethod } from '@tessera/contracts'
import { isAuthApiError } from '@supabase/supabase-js'
import { Hono } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'
import type { Context } from 'hono'
import type { AppEnv } from '../../http/app-env.ts'
import { jsonBody, requireJson } from '../../http/middleware/json-body.ts'
import { noStore } from '../../http/middleware/no-store.ts'
import { rateLimit } from '../../http/middleware/rate-limit.ts'
import {
  isEmailRateLimited,
  isInvalidCredentials,
  isSessionGone,
  throwAuthError,
} from './auth-errors.ts'
import type { AuthSession } from './auth-gateway.ts'
import { returnUrl, signedInBody } from './identity.ts'
import { createKnownDevices, createSharedKnownDevices } from './known-devices.ts'
import { enforceThrottle } from './sign-in-throttle.ts'
import type { Identity } from './identity.ts'

/**
 * Starts a BFF session for tokens Auth just issued: stores them, creates the profile at the first
 * sign-in, sets the cookie and tells the session's tabs. A session this browser had before ends.
 */
async function completeSignIn(
  c: Context<AppEnv>,
  identity: Identity,
  auth: AuthSession,
  options: { recovery: boolean; event: AuthEventName; method: SignInMethod },
): Promise<SignedIn> {
  const previous = await c.var.auth.current()
  if (previous !== null) await identity.sessions.revoke(previous)
  const { token, session } = await identity.sessions.start(auth, {
    recovery: options.recovery,
    method: options.method,
    userAgent: c.req.header('user-agent'),
    ip: identity.clientKey?.(c),
  })
  const profile = await identity.profiles.ensure(session.claims, auth.user.signUpDisplayName)
  c.var.auth.signIn(token)
  const body = signedInBody(
    session,
    profile,
    await identity.entitlements(session.claims, session.id),
  )
  await identity.events.publish(session.userId, options.event, {
    sessionId: session.id,
    user: body.user,
  })
  return body
}

/** How an email link signs a session in, as the sessions list names it. */
function signInMethodOf(type: ConfirmType): SignInMethod {
  if (type === 'recovery') return 'password_reset'
  // `email` is GoTrue's one-time link for signing in (it replaced `magiclink`).
  if (type === 'magiclink' || type === 'email') return 'magic_link'
  return 'email_confirmation'
}

/**
 * Auth failures that must look like success, so nobody can learn which addresses have accounts:
 * no account for a magic link, or an email sent to that address moments ago.
 */
function isQuietEmailFailure(error: unknown): boolean {
  return (
    isEmailRateLimited(error) ||
    (isAuthApiError(error) &&
      (error.code === 'otp_disabled' ||
        error.code === 'user_not_found' ||
        error.code === 'signup_disabled'))
  )
}

/** How long a browser stays known to an account after it last signed in with the password. */
const deviceLifetimeSeconds = 180 * 24 * 3600

const deviceToken = /^[A-Za-z0-9_-]{43}$/

/** 32 random bytes, base64url: what the device cookie holds. */
function newDeviceToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '')
}

/** Sign-up, sign-in, email links and sign-out (CSRF is checked for all of /api). */
export function authRoutes(identity: Identity) {
  const { gateway, sessions, throttle, logger } = identity
  const devicesSettings = { clock: identity.clock, lifetimeMs: deviceLifetimeSeconds * 1000 }
  const knownDevices =
    identity.sharedCounters === undefined
      ? createKnownDevices(devicesSettings)
      : createSharedKnownDevices({ ...devicesSettings, counters: identity.sharedCounters })
  const secureCookies = identity.publicOrigin.startsWith('https:')
  const deviceCookieName = secureCookies ? '__Host-tessera_device' : 'tessera_device'
  const emailLimit = rateLimit({ limiter: identity.emailLimiter, keyOf: identity.clientKey })
  const sendQuietly = async (what: string, send: () => Promise<void>) => {
    try {
      await send()
    } catch (error) {
      if (!isQuietEmailFailure(error)) throwAuthError(error)
      logger.info(`${what} not sent`, { reason: String(error) })
    }
  }

  return new Hono<AppEnv>()
    .use(noStore())
    .post('/sign-up', emailLimit, requireJson(), jsonBody(signUpBodySchema), async (c) => {
      const body = c.req.valid('json')
      let auth: AuthSession | null = null
      try {
        auth = await gateway.signUp({
          email: body.email,
          password: body.password,
          ...(body.displayName === undefined ? {} : { displayName: body.displayName }),
          redirectTo: returnUrl(identity, body.next),
        })
      } catch (error) {
        // A confirmation went to this address moments ago: the person has a link already.
        if (!isEmailRateLimited(error)) throwAuthError(error)
      }
      if (auth === null) return c.json({ status: 'check_email' as const, email: body.email }, 202)
      return c.json(
        await completeSignIn(c, identity, auth, {
          recovery: false,
          event: 'SIGNED_IN',
          method: 'password',
        }),
        200,
      )
    })
    .post('/sign-in', requireJson(), jsonBody(signInBodySchema), async (c) => {
      const { email, password } = c.req.valid('json')
      const device = getCookie(c, deviceCookieName)
      // A browser the owner signed in with before waits out its own back-off, not the account's.
      const accountKey = (await knownDevices.knows(email, device))
        ? `device:${email}:${device}`
        : `email:${email}`
      const keys = [accountKey, `client:${identity.clientKey?.(c) ?? 'unknown'}`]
      await enforceThrottle(throttle, keys)
      let auth: AuthSession
      try {
        auth = await gateway.signInWithPassword(email, password)
      } catch (error) {
        if (isInvalidCredentials(error)) await throttle.fail(keys)
        throwAuthError(error)
      }
      await Promise.all([throttle.reset(`email:${email}`), throttle.reset(accountKey)])
      const token = device !== undefined && deviceToken.test(device) ? device : newDeviceToken()
      await knownDevices.remember(email, token)
      setCookie(c, deviceCookieName, token, {
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
        secure: secureCookies,
        maxAge: deviceLifetimeSeconds,
      })
      return c.json(
        await completeSignIn(c, identity, auth, {
          recovery: false,
          event: 'SIGNED_IN',
          method: 'password',
        }),
        200,
      )
    })
    .post('/magic-link', emailLimit, requireJson(), jsonBody(emailLinkBodySchema), async (c) => {
      const { email, next } = c.req.valid('json')
      await sendQuietly('magic link', () => gateway.sendMagicLink(email, returnUrl(identity, next)))
      return c.json({ status: 'check_email' as const, email }, 202)
    })
    .post('/recover', emailLimit, requireJson(), jsonBody(emailLinkBodySchema), async (c) => {
      const { email, next } = c.req.valid('json')
      await sendQuietly('recovery email', () =>
        gateway.sendPasswordRecovery(email, returnUrl(identity, next)),
      )
      return c.json({ status: 'check_email' as const, email }, 202)
    })
    .post('/confirm', requireJson(), jsonBody(confirmBodySchema), async (c) => {
      const { tokenHash, type } = c.req.valid('json')
      let auth: AuthSession
      try {
        auth = await gateway.verifyEmailLink(tokenHash, type)
      } catch (error) {
        throwAuthError(error)
      }
      if (type !== 'email_change') {
        const recovery = type === 'recovery'
        return c.json(
          await completeSignIn(c, identity, auth, {
            recovery,
            event: recovery ? 'PASSWORD_RECOVERY' : 'SIGNED_IN',
            method: signInMethodOf(type),
          }),
          200,
        )
      }
      // The address changed: every session of the user shows the new one.
      await sessions.updateUser(auth.user)
      const current = await c.var.auth.current()
      let body: SignedIn
      if (current !== null && current.userId === auth.user.id) {
        // This browser is signed in as that user already: keep its session, end the link's.
        await gateway.signOut(auth.accessToken, 'local').catch((error: unknown) => {
          logger.warn('could not end the session of an email-change link', { error })
        })
        const session = { ...current, user: auth.user }
        const profile = await identity.profiles.ensure(session.claims, auth.user.signUpDisplayName)
        body = signedInBody(
          session,
          profile,
          await identity.entitlements(session.claims, session.id),
        )
      } else {
        body = await completeSignIn(c, identity, auth, {
          recovery: false,
          event: 'SIGNED_IN',
          method: 'email_confirmation',
        })
      }
      await identity.events.publish(auth.user.id, 'USER_UPDATED', {
        sessionId: null,
        user: body.user,
      })
      return c.json(body, 200)
    })
    .post('/sign-out', requireJson(), jsonBody(signOutBodySchema), async (c) => {
      const { scope } = c.req.valid('json')
      const session = await c.var.auth.current()
      if (session !== null) {
        if (scope === 'global') {
          try {
            await gateway.signOut(session.tokens.accessToken, 'global')
          } catch (error) {
            if (!isSessionGone(error)) throwAuthError(error)
          }
          await sessions.revokeEnded(session.userId, { by: session.id })
        } else {
          await sessions.revoke(session)
        }
      }
      c.var.auth.signOut()
      return c.json({ status: 'signed_out' as const }, 200)
    })
}
