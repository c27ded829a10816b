import { randomBytes } from 'node:crypto'
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Sql } from '@tessera/db/sql'
import { createOperatorRoles } from '@tessera/bff/modules/console/operator-roles'
import { CACHE_INVALIDATE_TYPE } from '@tessera/bff/modules/events/cache-invalidation'
import { createLiveEvent } from '@tessera/bff/modules/events/event-hub'
import { createOutboxBus } from '@tessera/bff/modules/events/event-outbox'
import { z } from 'zod/mini'

/** The local stack's first operator: its sign-in, for `npm start` to print. */
export const OPERATOR_FILE = 'operator.json'
export const LOCAL_OPERATOR_EMAIL = 'operator@tessera.local'

const operatorFileSchema = z.object({
  email: z.email(),
  password: z.string().check(z.minLength(12)),
})
export type LocalOperator = z.infer<typeof operatorFileSchema>

async function readOperatorFile(file: string): Promise<LocalOperator | null> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return null
    throw error
  }
  const parsed = operatorFileSchema.safeParse(JSON.parse(text))
  if (!parsed.success) throw new Error(`${file} is not an operator file; delete it and restart.`)
  return parsed.data
}

/**
 * Makes sure the local stack has its first operator, idempotently: the account
 * `operator@tessera.local` (created confirmed through Auth's admin API, its password generated
 * once and kept in `<dataDir>/operator.json`, mode 600) holding the operator role (granted as
 * `npm start`, audited like the CLI's grants).
 */
export async function ensureFirstOperator(options: {
  dataDir: string
  sql: Sql
  supabaseUrl: string
  serviceRoleKey: string
  fetch?: typeof fetch
}): Promise<LocalOperator> {
  const fetchImpl = options.fetch ?? fetch
  const file = path.join(options.dataDir, OPERATOR_FILE)
  const kept = await readOperatorFile(file)
  const operator = kept ?? {
    email: LOCAL_OPERATOR_EMAIL,
    password: randomBytes(18).toString('base64url'),
  }
  const admin = (method: string, route: string, body: unknown) =>
    fetchImpl(`${options.supabaseUrl}/auth/v1/admin/users${route}`, {
      method,
      headers: {
        apikey: options.serviceRoleKey,
        authorization: `Bearer ${options.serviceRoleKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    })
  const { rows } = await options.sql.query<{ id: string }>(
    'select id from auth.users where lower(email) = lower($1)',
    [operator.email],
  )
  const existing = rows[0]
  if (existing === undefined) {
    const created = await admin('POST', '', {
      email: operator.email,
      password: operator.password,
      email_confirm: true,
    })
    if (!created.ok) {
      throw new Error(
        `Auth refused to create ${operator.email} (${created.status}): ${await created.text()}`,
      )
    }
  } else if (kept === null) {
    // The account outlived its file: it gets the new password, so the printed sign-in works.
    const updated = await admin('PUT', `/${existing.id}`, { password: operator.password })
    if (!updated.ok) {
      throw new Error(
        `Auth refused to set the password of ${operator.email} (${updated.status}): ${await updated.text()}`,
      )
    }
  }
  await mkdir(options.dataDir, { recursive: true })
  await writeFile(file, `${JSON.stringify(operator, null, 2)}\n`, { mode: 0o600 })
  await chmod(file, 0o600)

  const bus = createOutboxBus(options.sql)
  const clock = { now: () => Date.now() }
  const roles = createOperatorRoles({
    sql: options.sql,
    clock,
    publish: (invalidation, tx) =>
      bus.publish(
        { topic: 'internal', event: createLiveEvent(CACHE_INVALIDATE_TYPE, invalidation, clock) },
        tx,
      ),
  })
  await roles.grant(operator.email, { source: 'cli', userId: null, label: 'npm start' })
  return operator
}
