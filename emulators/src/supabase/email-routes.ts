/**
 * GoTrue's email flows under `/auth/v1`: password recovery, magic links and one-time codes, resending
 * a confirmation, and verifying what the emails carry (`POST /verify` for the SDK, `GET /verify`
 * for GoTrue's own links).
 */
import type { Hono } from 'hono'
import { z } from 'zod/mini'
import { redirectFor, userAgent, type AuthDeps } from './auth-context.ts'
import { GoTrueError, badRequest, forbidden, unprocessable } from './errors.ts'
import { tokenHashFor } from './one-time-tokens.ts'
import {
  containsNul,
  metadataSchema,
  pkceFields,
  readBody,
  rejectPkce,
  validateEmail,
} from './request.ts'
import { findUserByEmail, insertUser } from './users.ts'
import { isVerifyType, redeemEmailToken } from './verify.ts'

const emailOnlySchema = z.looseObject({ email: z.optional(z.string()), ...pkceFields })

const otpSchema = z.looseObject({
  email: z.optional(z.string()),
  phone: z.nullish(z.string()),
  data: z.nullish(metadataSchema),
  create_user: z.nullish(z.boolean()),
  ...pkceFields,
})

const resendSchema = z.looseObject({
  type: z.optional(z.string()),
  email: z.optional(z.string()),
  phone: z.nullish(z.string()),
})

const verifySchema = z.looseObject({
  type: z.optional(z.string()),
  token_hash: z.nullish(z.string()),
  token: z.nullish(z.string()),
  email: z.nullish(z.string()),
  phone: z.nullish(z.string()),
})

export function registerEmailRoutes(app: Hono, deps: AuthDeps): void {
  const { sql, config, mailer } = deps

  app.post('/recover', async (c) => {
    const body = await readBody(c, emailOnlySchema)
    rejectPkce(body)
    const email = validateEmail(body.email)
    const redirectTo = redirectFor(c, config)
    await sql.transaction(async (tx) => {
      const user = await findUserByEmail(tx, email, { forUpdate: true })
      // Unknown addresses get the same answer: nobody learns who has an account.
      if (user !== null)
        await mailer.send(tx, { type: 'recovery', userId: user.id, to: email, redirectTo })
    })
    return c.json({})
  })

  app.post('/otp', async (c) => {
    const body = await readBody(c, otpSchema)
    rejectPkce(body)
    if (body.phone !== undefined && body.phone !== null && body.phone !== '') {
      throw unprocessable('phone_provider_disabled', 'Phone logins are disabled')
    }
    const email = validateEmail(body.email)
    const createUser = body.create_user ?? true
    const redirectTo = redirectFor(c, config)
    await sql.transaction(async (tx) => {
      const now = config.clock.now()
      const user = await findUserByEmail(tx, email, { forUpdate: true })
      if (user === null) {
        if (!createUser) throw unprocessable('otp_disabled', 'Signups not allowed for otp')
        if (config.disableSignup)
          throw unprocessable('signup_disabled', 'Signups not allowed for this instance')
        // A new address signs up without a password; the confirmation email is its magic link.
        const userId = await insertUser(tx, {
          email,
          passwordHash: '',
          userMetadata: body.data ?? {},
          confirmedAt: null,
          now,
        })
        await mailer.send(tx, { type: 'signup', userId, to: email, redirectTo })
      } else if (user.email_confirmed_at === null) {
        await mailer.send(tx, { type: 'signup', userId: user.id, to: email, redirectTo })
      } else {
        await mailer.send(tx, { type: 'magiclink', userId: user.id, to: email, redirectTo })
      }
    })
    return c.json({})
  })

  app.post('/resend', async (c) => {
    const body = await readBody(c, resendSchema)
    if (body.type !== 'signup' && body.type !== 'email_change') {
      throw badRequest(
        'validation_failed',
        `Resending type "${body.type ?? ''}" is not supported (signup and email_change are).`,
      )
    }
    const email = validateEmail(body.email)
    const redirectTo = redirectFor(c, config)
    await sql.transaction(async (tx) => {
      const user = await findUserByEmail(tx, email, { forUpdate: true })
      if (user === null) return
      if (body.type === 'signup' && user.email_confirmed_at === null) {
        await mailer.send(tx, { type: 'signup', userId: user.id, to: email, redirectTo })
      } else if (
        body.type === 'email_change' &&
        user.email_change !== null &&
        user.email_change !== ''
      ) {
        await mailer.send(tx, {
          type: 'email_change',
          userId: user.id,
          to: user.email_change,
          redirectTo,
        })
      }
    })
    return c.json({})
  })

  app.post('/verify', async (c) => {
    const body = await readBody(c, verifySchema)
    const type = body.type ?? ''
    if ((body.phone ?? '') !== '' || type === 'sms' || type === 'phone_change') {
      throw badRequest(
        'validation_failed',
        'Phone verification is not supported by the Tessera Supabase stand-in.',
      )
    }
    if (type === 'invite')
      throw badRequest(
        'validation_failed',
        'Invites are not supported by the Tessera Supabase stand-in.',
      )
    if (!isVerifyType(type)) throw badRequest('validation_failed', 'Unsupported verification type')
    let tokenHash = body.token_hash ?? ''
    if (tokenHash === '') {
      const token = (body.token ?? '').replaceAll('-', '').trim()
      if (token === '')
        throw badRequest('validation_failed', 'Verify requires either a token or a token hash')
      if ((body.email ?? '') === '') {
        throw badRequest(
          'validation_failed',
          'Only an email address or phone number should be provided on verify',
        )
      }
      tokenHash = await tokenHashFor(validateEmail(body.email ?? ''), token)
    }
    const session = await sql.transaction((tx) =>
      redeemEmailToken(tx, deps, { type, tokenHash, userAgent: userAgent(c) }),
    )
    return c.json(session)
  })

  // The link GoTrue puts in its own emails: verifies, then 303 to the app with the tokens (or the
  // error) in the fragment, where only the browser sees them.
  app.get('/verify', async (c) => {
    const redirectTo = redirectFor(c, config)
    const type = c.req.query('type') ?? ''
    const tokenHash = (c.req.query('token') ?? '').trim()
    const fragment = new URLSearchParams()
    try {
      if (!isVerifyType(type))
        throw badRequest('validation_failed', 'Unsupported verification type')
      if (tokenHash === '') throw badRequest('validation_failed', 'Verify requires a token')
      if (containsNul(tokenHash)) throw forbidden('otp_expired', 'Token has expired or is invalid')
      const session = await sql.transaction((tx) =>
        redeemEmailToken(tx, deps, { type, tokenHash, userAgent: userAgent(c) }),
      )
      fragment.set('access_token', session.access_token)
      fragment.set('expires_at', String(session.expires_at))
      fragment.set('expires_in', String(session.expires_in))
      fragment.set('refresh_token', session.refresh_token)
      fragment.set('token_type', session.token_type)
      fragment.set('type', type)
      return c.redirect(`${redirectTo}#${fragment.toString()}`, 303)
    } catch (error) {
      if (!(error instanceof GoTrueError)) throw error
      fragment.set('error', error.status === 403 ? 'access_denied' : 'invalid_request')
      fragment.set('error_code', error.code)
      fragment.set(
        'error_description',
        error.code === 'otp_expired' ? 'Email link is invalid or has expired' : error.message,
      )
      const target = new URL(redirectTo)
      target.search = ''
      target.hash = fragment.toString()
      return c.redirect(target.toString(), 303)
    }
  })
}
