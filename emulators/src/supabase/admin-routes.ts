import type { Context, Hono } from 'hono'
import { z } from 'zod/mini'
import { isServiceRequest } from './api-keys.ts'
import type { AuthDeps } from './auth-context.ts'
import { GoTrueError, badRequest, forbidden, unprocessable } from './errors.ts'
import { checkPasswordStrength, hashPassword } from './passwords.ts'
import { metadataSchema, readBody, validateEmail } from './request.ts'
import { logout } from './sessions.ts'
import type { UserRow } from './users.ts'
import {
  confirmUser,
  findIdentities,
  findUserByEmail,
  findUserById,
  insertUser,
  isUniqueViolation,
  loadUserJson,
  mergeMetadata,
  setUserEmail,
  userColumns,
  userJson,
} from './users.ts'

const createUserSchema = z.looseObject({
  email: z.optional(z.string()),
  password: z.nullish(z.string()),
  phone: z.nullish(z.string()),
  email_confirm: z.nullish(z.boolean()),
  user_metadata: z.nullish(metadataSchema),
  app_metadata: z.nullish(metadataSchema),
  ban_duration: z.nullish(z.string()),
})

const updateUserSchema = z.extend(createUserSchema, { email: z.nullish(z.string()) })

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const userNotFound = () => new GoTrueError(404, 'user_not_found', 'User not found')

/** Go's duration syntax as GoTrue reads `ban_duration` (`24h`, `1h30m`, `90s`), or `none`. */
export function parseBanDuration(value: string): number | null {
  if (value === 'none') return null
  const match = /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(value)
  if (value === '' || match === null)
    throw badRequest('validation_failed', 'invalid format for ban duration')
  const [, hours = '0', minutes = '0', seconds = '0'] = match
  return ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000
}

/** `/admin/users…`: what tests and the BFF's admin work use, with the service role key only. */
export function registerAdminRoutes(app: Hono, deps: AuthDeps): void {
  const { sql, config } = deps

  const requireServiceRole = (c: Context) => {
    if (!isServiceRequest(c, config.apiKeys)) throw forbidden('not_admin', 'User not allowed')
  }

  const loadUser = async (id: string | undefined): Promise<UserRow> => {
    if (id === undefined || !uuidPattern.test(id)) throw userNotFound()
    const user = await findUserById(sql, id)
    if (user === null) throw userNotFound()
    return user
  }

  app.get('/admin/users', async (c) => {
    requireServiceRole(c)
    const page = Math.max(Number.parseInt(c.req.query('page') || '1', 10) || 1, 1)
    const perPage = Math.min(
      Math.max(Number.parseInt(c.req.query('per_page') || '50', 10) || 50, 1),
      1000,
    )
    const { rows: totals } = await sql.query<{ total: number }>(
      'select count(*)::int as total from auth.users',
    )
    const total = totals[0]?.total ?? 0
    const { rows } = await sql.query<UserRow>(
      `select ${userColumns} from auth.users order by created_at desc, id limit $1 offset $2`,
      [perPage, (page - 1) * perPage],
    )
    const users = await Promise.all(
      rows.map(async (row) => userJson(row, await findIdentities(sql, row.id))),
    )
    const lastPage = Math.max(Math.ceil(total / perPage), 1)
    const links: string[] = []
    if (page < lastPage)
      links.push(`</admin/users?page=${page + 1}&per_page=${perPage}>; rel="next"`)
    links.push(`</admin/users?page=${lastPage}&per_page=${perPage}>; rel="last"`)
    c.header('x-total-count', String(total))
    c.header('link', links.join(', '))
    return c.json({ aud: 'authenticated', users })
  })

  app.post('/admin/users', async (c) => {
    requireServiceRole(c)
    const body = await readBody(c, createUserSchema)
    if ((body.phone ?? '') !== '')
      throw badRequest(
        'validation_failed',
        'Phone users are not supported by the Tessera Supabase stand-in.',
      )
    const email = validateEmail(body.email)
    const password = body.password ?? ''
    if (password !== '') checkPasswordStrength(password, config)
    const bannedFor =
      body.ban_duration === undefined || body.ban_duration === null
        ? null
        : parseBanDuration(body.ban_duration)
    const passwordHash = password === '' ? '' : await hashPassword(sql, password, config.bcryptCost)
    const user = await sql
      .transaction(async (tx) => {
        const now = config.clock.now()
        if ((await findUserByEmail(tx, email)) !== null) {
          throw unprocessable(
            'email_exists',
            'A user with this email address has already been registered',
          )
        }
        const id = await insertUser(tx, {
          email,
          passwordHash,
          userMetadata: body.user_metadata ?? {},
          appMetadata: body.app_metadata ?? {},
          confirmedAt: body.email_confirm === true ? now : null,
          now,
        })
        if (bannedFor !== null) {
          await tx.query('update auth.users set banned_until = $2 where id = $1', [
            id,
            new Date(now.getTime() + bannedFor),
          ])
        }
        const created = await findUserById(tx, id)
        if (created === null) throw new Error('The new user vanished.')
        return loadUserJson(tx, created)
      })
      .catch((error: unknown) => {
        if (isUniqueViolation(error))
          throw unprocessable(
            'email_exists',
            'A user with this email address has already been registered',
          )
        throw error
      })
    return c.json(user)
  })

  app.get('/admin/users/:id', async (c) => {
    requireServiceRole(c)
    return c.json(await loadUserJson(sql, await loadUser(c.req.param('id'))))
  })

  app.put('/admin/users/:id', async (c) => {
    requireServiceRole(c)
    const body = await readBody(c, updateUserSchema)
    const existing = await loadUser(c.req.param('id'))
    const email =
      body.email === undefined || body.email === null || body.email === ''
        ? undefined
        : validateEmail(body.email)
    const password = body.password ?? ''
    if (password !== '') checkPasswordStrength(password, config)
    const bannedFor =
      body.ban_duration === undefined || body.ban_duration === null
        ? undefined
        : parseBanDuration(body.ban_duration)
    const passwordHash =
      password === '' ? undefined : await hashPassword(sql, password, config.bcryptCost)
    const user = await sql.transaction(async (tx) => {
      const now = config.clock.now()
      const current = await findUserById(tx, existing.id, { forUpdate: true })
      if (current === null) throw userNotFound()
      if (email !== undefined && email !== current.email) {
        const taken = await findUserByEmail(tx, email)
        if (taken !== null)
          throw unprocessable(
            'email_exists',
            'A user with this email address has already been registered',
          )
        await setUserEmail(tx, current.id, email, now)
      }
      if (passwordHash !== undefined) {
        await tx.query('update auth.users set encrypted_password = $2 where id = $1', [
          current.id,
          passwordHash,
        ])
        // An administrator's password reset ends every session, as in GoTrue.
        await tx.query('delete from auth.sessions where user_id = $1', [current.id])
      }
      if (body.email_confirm === true) await confirmUser(tx, current.id, now)
      if (body.user_metadata !== undefined && body.user_metadata !== null) {
        await tx.query('update auth.users set raw_user_meta_data = $2::jsonb where id = $1', [
          current.id,
          JSON.stringify(mergeMetadata(current.raw_user_meta_data, body.user_metadata)),
        ])
      }
      if (body.app_metadata !== undefined && body.app_metadata !== null) {
        await tx.query('update auth.users set raw_app_meta_data = $2::jsonb where id = $1', [
          current.id,
          JSON.stringify(mergeMetadata(current.raw_app_meta_data, body.app_metadata)),
        ])
      }
      if (bannedFor !== undefined) {
        await tx.query('update auth.users set banned_until = $2 where id = $1', [
          current.id,
          bannedFor === null ? null : new Date(now.getTime() + bannedFor),
        ])
        if (bannedFor !== null)
          await tx.query('delete from auth.sessions where user_id = $1', [current.id])
      }
      await tx.query('update auth.users set updated_at = $2 where id = $1', [current.id, now])
      const updated = await findUserById(tx, current.id)
      if (updated === null) throw userNotFound()
      return loadUserJson(tx, updated)
    })
    return c.json(user)
  })

  app.delete('/admin/users/:id', async (c) => {
    requireServiceRole(c)
    const user = await loadUser(c.req.param('id'))
    await sql.transaction(async (tx) => {
      await logout(tx, user.id, '00000000-0000-0000-0000-000000000000', 'global')
      await tx.query('delete from auth.users where id = $1', [user.id])
    })
    return c.json({})
  })
}
