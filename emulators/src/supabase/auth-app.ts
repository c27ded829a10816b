/**
 * GoTrue's HTTP API as `@supabase/supabase-js` uses it, mounted under `/auth/v1`. State lives in
 * the `auth` schema of the project database, as with hosted Supabase.
 */
import { Hono } from 'hono'
import { z } from 'zod/mini'
import { registerAdminRoutes } from './admin-routes.ts'
import { redirectFor, userAgent, type AuthDeps } from './auth-context.ts'
import { registerEmailRoutes } from './email-routes.ts'
import { GoTrueError, badRequest, unprocessable } from './errors.ts'
import { checkPasswordStrength, hashPassword, passwordMatches } from './passwords.ts'
import {
  metadataSchema,
  pkceFields,
  readBody,
  rejectPkce,
  requireUser,
  validateEmail,
} from './request.ts'
import type { LogoutScope, SessionResponse } from './sessions.ts'
import { issueSession, logout, refreshSession } from './sessions.ts'
import type { GoTrueUser } from './users.ts'
import {
  findUserByEmail,
  findUserById,
  insertUser,
  isBanned,
  isUniqueViolation,
  loadUserJson,
  mergeMetadata,
} from './users.ts'

const signupSchema = z.looseObject({
  email: z.optional(z.string()),
  password: z.optional(z.string()),
  phone: z.nullish(z.string()),
  data: z.nullish(metadataSchema),
  ...pkceFields,
})

const passwordGrantSchema = z.looseObject({
  email: z.optional(z.string()),
  phone: z.nullish(z.string()),
  password: z.optional(z.string()),
})

const refreshGrantSchema = z.looseObject({ refresh_token: z.optional(z.string()) })

const updateUserSchema = z.looseObject({
  email: z.nullish(z.string()),
  password: z.nullish(z.string()),
  phone: z.nullish(z.string()),
  data: z.nullish(metadataSchema),
  nonce: z.nullish(z.string()),
  ...pkceFields,
})

const invalidCredentials = () => badRequest('invalid_credentials', 'Invalid login credentials')

/** What GoTrue answers a sign-up for an already confirmed address, so accounts cannot be probed. */
function obfuscatedUser(email: string, data: Record<string, unknown>, now: Date): GoTrueUser {
  const at = now.toISOString()
  return {
    id: crypto.randomUUID(),
    aud: 'authenticated',
    role: '',
    email,
    phone: '',
    confirmation_sent_at: at,
    app_metadata: { provider: 'email', providers: ['email'] },
    user_metadata: data,
    identities: [],
    created_at: at,
    updated_at: at,
    is_anonymous: false,
  }
}

export function createAuthApp(deps: AuthDeps): Hono {
  const { sql, config, mailer } = deps
  const app = new Hono()
  // Compared against when the address is unknown, so a sign-in takes as long either way.
  let dummyHash: Promise<string> | undefined

  app.get('/health', (c) =>
    c.json({
      version: 'tessera-stand-in',
      name: 'GoTrue',
      description: 'GoTrue is a user registration and authentication API',
    }),
  )

  app.get('/settings', (c) =>
    c.json({
      external: { anonymous_users: false, email: true, phone: false },
      disable_signup: config.disableSignup,
      mailer_autoconfirm: config.mailerAutoconfirm,
      phone_autoconfirm: false,
      sms_provider: '',
      saml_enabled: false,
    }),
  )

  app.get('/.well-known/jwks.json', (c) => c.json({ keys: [deps.key.publicJwk] }))

  app.post('/signup', async (c) => {
    const body = await readBody(c, signupSchema)
    rejectPkce(body)
    if (body.phone !== undefined && body.phone !== null && body.phone !== '') {
      throw unprocessable('phone_provider_disabled', 'Phone signups are disabled')
    }
    if ((body.email ?? '') === '' && (body.password ?? '') === '') {
      throw unprocessable('anonymous_provider_disabled', 'Anonymous sign-ins are disabled')
    }
    if (config.disableSignup)
      throw unprocessable('signup_disabled', 'Signups not allowed for this instance')
    const email = validateEmail(body.email)
    const password = body.password ?? ''
    if (password === '') throw badRequest('validation_failed', 'Signup requires a valid password')
    checkPasswordStrength(password, config)
    const data = body.data ?? {}
    const redirectTo = redirectFor(c, config)
    const passwordHash = await hashPassword(sql, password, config.bcryptCost)

    const answer = await sql
      .transaction(async (tx): Promise<SessionResponse | GoTrueUser> => {
        const now = config.clock.now()
        const existing = await findUserByEmail(tx, email, { forUpdate: true })
        if (existing !== null && existing.email_confirmed_at !== null) {
          if (config.mailerAutoconfirm)
            throw unprocessable('user_already_exists', 'User already registered')
          return obfuscatedUser(email, data, now)
        }
        let userId: string
        if (existing === null) {
          userId = await insertUser(tx, {
            email,
            passwordHash,
            userMetadata: data,
            confirmedAt: config.mailerAutoconfirm ? now : null,
            now,
          })
        } else {
          // Not confirmed yet: GoTrue updates the metadata and sends the confirmation again. The
          // password is kept, so nobody can set a password on an address they do not read.
          userId = existing.id
          await tx.query(
            `update auth.users set raw_user_meta_data = $2::jsonb, updated_at = $3 where id = $1`,
            [userId, JSON.stringify(mergeMetadata(existing.raw_user_meta_data, data)), now],
          )
        }
        if (config.mailerAutoconfirm)
          return issueSession(tx, deps, userId, 'password', userAgent(c))
        await mailer.send(tx, { type: 'signup', userId, to: email, redirectTo })
        const user = await findUserById(tx, userId)
        if (user === null) throw new Error('The new user vanished.')
        return loadUserJson(tx, user)
      })
      .catch((error: unknown) => {
        // Two sign-ups for one new address at the same moment: the second one lost the race.
        if (isUniqueViolation(error))
          throw unprocessable('user_already_exists', 'User already registered')
        throw error
      })
    return c.json(answer)
  })

  app.post('/token', async (c) => {
    const grantType = c.req.query('grant_type')
    if (grantType === 'password') {
      const body = await readBody(c, passwordGrantSchema)
      if (body.phone !== undefined && body.phone !== null && body.phone !== '') {
        throw badRequest(
          'validation_failed',
          'Phone sign-in is not supported by the Tessera Supabase stand-in.',
        )
      }
      const email = (body.email ?? '').trim().toLowerCase()
      const password = body.password ?? ''
      if (email === '' || password === '') throw invalidCredentials()
      const user = await findUserByEmail(sql, email)
      if (user === null || user.encrypted_password === null || user.encrypted_password === '') {
        dummyHash ??= hashPassword(sql, crypto.randomUUID(), config.bcryptCost)
        await passwordMatches(sql, password, await dummyHash)
        throw invalidCredentials()
      }
      if (!(await passwordMatches(sql, password, user.encrypted_password)))
        throw invalidCredentials()
      if (user.email_confirmed_at === null)
        throw badRequest('email_not_confirmed', 'Email not confirmed')
      if (isBanned(user, config.clock.now())) throw badRequest('user_banned', 'User is banned')
      return c.json(
        await sql.transaction((tx) => issueSession(tx, deps, user.id, 'password', userAgent(c))),
      )
    }
    if (grantType === 'refresh_token') {
      const body = await readBody(c, refreshGrantSchema)
      const refreshToken = body.refresh_token ?? ''
      if (refreshToken === '') throw badRequest('validation_failed', 'refresh_token required')
      return c.json(await refreshSession(sql, deps, refreshToken, userAgent(c)))
    }
    throw badRequest(
      'validation_failed',
      grantType === undefined
        ? 'grant_type is required (password or refresh_token).'
        : `grant_type=${grantType} is not supported by the Tessera Supabase stand-in (password and refresh_token are).`,
    )
  })

  app.get('/user', async (c) => {
    const { user } = await requireUser(c, deps)
    return c.json(await loadUserJson(sql, user))
  })

  app.put('/user', async (c) => {
    const body = await readBody(c, updateUserSchema)
    rejectPkce(body)
    const auth = await requireUser(c, deps)
    if (body.phone !== undefined && body.phone !== null && body.phone !== '') {
      throw badRequest(
        'validation_failed',
        'Changing the phone number is not supported by the Tessera Supabase stand-in.',
      )
    }
    const password = body.password ?? undefined
    if (password !== undefined) checkPasswordStrength(password, config)
    const newEmail =
      body.email !== undefined && body.email !== null && body.email !== ''
        ? validateEmail(body.email)
        : undefined
    const redirectTo = redirectFor(c, config)

    const user = await sql.transaction(async (tx) => {
      const now = config.clock.now()
      const current = await findUserById(tx, auth.user.id, { forUpdate: true })
      if (current === null) throw new GoTrueError(404, 'user_not_found', 'User not found')
      if (body.data !== undefined && body.data !== null) {
        await tx.query(`update auth.users set raw_user_meta_data = $2::jsonb where id = $1`, [
          current.id,
          JSON.stringify(mergeMetadata(current.raw_user_meta_data, body.data)),
        ])
      }
      if (password !== undefined) {
        if (
          current.encrypted_password !== null &&
          (await passwordMatches(tx, password, current.encrypted_password))
        ) {
          throw unprocessable(
            'same_password',
            'New password should be different from the old password.',
          )
        }
        await tx.query(`update auth.users set encrypted_password = $2 where id = $1`, [
          current.id,
          await hashPassword(tx, password, config.bcryptCost),
        ])
        // GoTrue signs the user out everywhere else when the password changes.
        await logout(tx, current.id, auth.sessionId, 'others')
      }
      if (newEmail !== undefined && newEmail !== current.email) {
        const taken = await findUserByEmail(tx, newEmail)
        if (taken !== null)
          throw unprocessable(
            'email_exists',
            'A user with this email address has already been registered',
          )
        await tx.query(`update auth.users set email_change = $2 where id = $1`, [
          current.id,
          newEmail,
        ])
        await mailer.send(tx, {
          type: 'email_change',
          userId: current.id,
          to: newEmail,
          redirectTo,
        })
      }
      await tx.query(`update auth.users set updated_at = $2 where id = $1`, [current.id, now])
      const updated = await findUserById(tx, current.id)
      if (updated === null) throw new Error('The user vanished during the update.')
      return loadUserJson(tx, updated)
    })
    return c.json(user)
  })

  app.post('/logout', async (c) => {
    const scope = c.req.query('scope') ?? 'global'
    if (scope !== 'global' && scope !== 'local' && scope !== 'others') {
      throw badRequest('validation_failed', `Unsupported logout scope "${scope}"`)
    }
    const auth = await requireUser(c, deps)
    await logout(sql, auth.user.id, auth.sessionId, scope as LogoutScope)
    return c.body(null, 204)
  })

  registerEmailRoutes(app, deps)
  registerAdminRoutes(app, deps)
  return app
}
