import {
  ApiError,
  changeEmailBodySchema,
  changePasswordBodySchema,
  updateProfileBodySchema,
} from '@tessera/contracts'
import { EVENTS_POSITION_HEADER, type DeviceSession } from '@tessera/contracts'
import { Hono } from 'hono'
import type { AppEnv } from '../../http/app-env.ts'
import type { ProfileRow } from '../../platform/db/schema.ts'
import { validationFailed } from '../../platform/errors.ts'
import { jsonBody, requireJson } from '../../http/middleware/json-body.ts'
import { noStore } from '../../http/middleware/no-store.ts'
import { rateLimit } from '../../http/middleware/rate-limit.ts'
import { isInvalidCredentials, throwAuthError } from './auth-errors.ts'
import { describeDevice, parseUserAgent } from './device-label.ts'
import { createMeBodies, sendMeBody } from './me-body.ts'
import type { AuthGateway, AuthTokens } from './auth-gateway.ts'
import { meUserOf, returnUrl, signedInBody } from './identity.ts'
import { enforceThrottle } from './sign-in-throttle.ts'
import type { Identity } from './identity.ts'
import type { EventLog } from '../events/event-outbox.ts'
import type { ActiveSession } from './sessions.ts'

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The signed-in user: who they are, their profile, email, password and devices. */
export function meRoutes(
  identity: Identity,
  options: {
    /** The live events' log: where it stands is sent with each session read. */
    log?: Pick<EventLog, 'position'>
  } = {},
) {
  const { log } = options
  const { gateway, sessions, profiles, events, throttle, logger } = identity
  const meBody = createMeBodies()
  const emailLimit = rateLimit({ limiter: identity.emailLimiter, keyOf: identity.clientKey })

  const profileOf = async (session: ActiveSession): Promise<ProfileRow> => {
    const { claims } = session
    return (await profiles.get(claims)) ?? profiles.ensure(claims, session.user.signUpDisplayName)
  }

  /** updateUser at Auth; keeps tokens the client had to refresh on the way. */
  const updateUser = async (
    session: ActiveSession,
    changes: Parameters<AuthGateway['updateUser']>[1],
    fields: { password?: string },
    redirectTo?: string,
  ) => {
    let result: { user: ActiveSession['user']; tokens: AuthTokens }
    try {
      result = await gateway.updateUser(session.tokens, changes, redirectTo)
    } catch (error) {
      throwAuthError(error, fields)
    }
    if (result.tokens.refreshToken !== session.tokens.refreshToken)
      await sessions.saveTokens(session.id, result.tokens)
    await sessions.updateUser(result.user)
    return { ...session, user: result.user, tokens: result.tokens }
  }

  /** Checks the current password with a password sign-in, then ends that extra session. */
  const verifyCurrentPassword = async (session: ActiveSession, password: string | undefined) => {
    if (password === undefined) {
      throw validationFailed([{ path: 'currentPassword', message: 'Enter your current password.' }])
    }
    const keys = [`email:${session.user.email}`]
    await enforceThrottle(throttle, keys)
    try {
      const check = await gateway.signInWithPassword(session.user.email, password)
      await gateway.signOut(check.accessToken, 'local').catch((error: unknown) => {
        logger.warn('could not end the session of a password check', { error })
      })
    } catch (error) {
      if (!isInvalidCredentials(error)) throwAuthError(error, { password: 'currentPassword' })
      await throttle.fail(keys)
      throw validationFailed([
        { path: 'currentPassword', message: 'This is not your current password.' },
      ])
    }
  }

  return new Hono<AppEnv>()
    .use(noStore())
    .get('/', async (c) => {
      c.header('Vary', 'Cookie')
      // Read before the session: an event published after it is above it, and the page's stream,
      // opened from here, replays it (the events published while the stream was not yet open).
      if (log) c.header(EVENTS_POSITION_HEADER, String(log.position()))
      const session = await c.var.auth.current()
      // A visitor who is not signed in is not an error: the host asks this at every start. A
      // cookie of a session that ended says how, so the sign-in page can tell the person why.
      if (session === null) {
        const ended = await c.var.auth.ended()
        const body: { user: null; ended?: 'revoked' | 'expired' } =
          ended === null ? { user: null } : { user: null, ended }
        return c.json(body, 200)
      }
      const [profile, entitlements, roles, workspace] = await Promise.all([
        profileOf(session),
        identity.entitlements(session.claims, session.id),
        identity.rolesOf?.(session.userId) ?? [],
        identity.currentWorkspace?.(session),
      ])
      // The JSON `c.json` would write, kept while its parts stay the same (me-body.ts).
      return sendMeBody(c, meBody({ session, profile, entitlements, roles, workspace }))
    })
    .patch('/profile', requireJson(), jsonBody(updateProfileBodySchema), async (c) => {
      const { displayName } = c.req.valid('json')
      const session = await c.var.auth.require()
      const { claims } = session
      const entitlements = await identity.entitlements(claims, session.id)
      // USER_UPDATED is written in the transaction that changes the profile.
      const updated = await profiles.update(claims, displayName, (tx, row) =>
        events.publish(
          session.userId,
          'USER_UPDATED',
          { sessionId: null, user: signedInBody(session, row, entitlements).user },
          tx,
        ),
      )
      if (updated !== null) return c.json(signedInBody(session, updated, entitlements), 200)
      // No profile yet: it is created now, and the event follows in a statement of its own.
      const body = signedInBody(session, await profiles.ensure(claims, displayName), entitlements)
      await events.publish(session.userId, 'USER_UPDATED', { sessionId: null, user: body.user })
      return c.json(body, 200)
    })
    .post('/email', emailLimit, requireJson(), jsonBody(changeEmailBodySchema), async (c) => {
      const { email, next, currentPassword } = c.req.valid('json')
      const session = await c.var.auth.require()
      if (email === session.user.email) {
        throw validationFailed([{ path: 'email', message: 'This is your email address already.' }])
      }
      if (!session.recovery) await verifyCurrentPassword(session, currentPassword)
      const updated = await updateUser(session, { email }, {}, returnUrl(identity, next))
      await events.publish(session.userId, 'USER_UPDATED', {
        sessionId: null,
        user: meUserOf(updated, await profileOf(updated)),
      })
      return c.json({ status: 'check_email' as const, email }, 202)
    })
    .post('/password', requireJson(), jsonBody(changePasswordBodySchema), async (c) => {
      const { password, currentPassword } = c.req.valid('json')
      const session = await c.var.auth.require()
      if (!session.recovery) await verifyCurrentPassword(session, currentPassword)
      const updated = await updateUser(session, { password }, { password: 'password' })
      await sessions.endRecovery(session.id)
      // Auth signs every other session of the user out when the password changes.
      await sessions.revokeEnded(session.userId, { except: session.id })
      const body = signedInBody(
        { ...updated, recovery: false },
        await profileOf(updated),
        await identity.entitlements(updated.claims, updated.id),
      )
      await events.publish(session.userId, 'USER_UPDATED', { sessionId: null, user: body.user })
      return c.json(body, 200)
    })
    .get('/sessions', async (c) => {
      const session = await c.var.auth.require()
      const rows = await sessions.list(session.userId)
      const list: DeviceSession[] = rows.map((row) => {
        const agent = parseUserAgent(row.userAgent)
        return {
          id: row.id,
          device: row.userAgent === null ? row.device : describeDevice(row.userAgent),
          browser: agent.browser,
          os: agent.os,
          signInMethod: row.signInMethod,
          lastSeenAddress: row.lastSeenIp,
          createdAt: row.createdAt.toISOString(),
          lastSeenAt: row.lastSeenAt.toISOString(),
          current: row.id === session.id,
        }
      })
      return c.json({ sessions: list }, 200)
    })
    .delete('/sessions/:id', async (c) => {
      const session = await c.var.auth.require()
      const id = c.req.param('id')
      // Not a session id: it names no session (and must not reach a uuid column).
      const target = uuidPattern.test(id) ? await sessions.find(session.userId, id) : null
      if (target === null) throw new ApiError('not_found')
      const current = target.id === session.id
      // Another session's row: that device was signed out from here.
      await sessions.revoke(target, current ? 'signed_out' : 'revoked')
      if (current) c.var.auth.signOut()
      return c.json({ status: 'revoked' as const, current }, 200)
    })
}
