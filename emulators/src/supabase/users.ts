import type { SqlQueryable } from '@tessera/db/sql'

export type Json = Record<string, unknown>

/** The `auth.users` columns the stand-in reads. */
export interface UserRow {
  id: string
  aud: string | null
  role: string | null
  email: string | null
  encrypted_password: string | null
  email_confirmed_at: Date | null
  invited_at: Date | null
  confirmation_sent_at: Date | null
  recovery_sent_at: Date | null
  email_change: string | null
  email_change_sent_at: Date | null
  last_sign_in_at: Date | null
  raw_app_meta_data: Json | null
  raw_user_meta_data: Json | null
  created_at: Date | null
  updated_at: Date | null
  phone: string | null
  confirmed_at: Date | null
  banned_until: Date | null
  is_anonymous: boolean
}

export const userColumns = `id, aud, role, email, encrypted_password, email_confirmed_at, invited_at,
  confirmation_sent_at, recovery_sent_at, email_change, email_change_sent_at, last_sign_in_at,
  raw_app_meta_data, raw_user_meta_data, created_at, updated_at, phone, confirmed_at, banned_until, is_anonymous`

export interface IdentityRow {
  id: string
  provider_id: string
  user_id: string
  identity_data: Json
  provider: string
  last_sign_in_at: Date | null
  created_at: Date | null
  updated_at: Date | null
  email: string | null
}

/** A user as GoTrue serialises it (empty optional fields left out, as Go's `omitempty` does). */
export interface GoTrueUser {
  id: string
  aud: string
  role: string
  email: string
  email_confirmed_at?: string
  phone: string
  confirmation_sent_at?: string
  confirmed_at?: string
  recovery_sent_at?: string
  new_email?: string
  email_change_sent_at?: string
  last_sign_in_at?: string
  app_metadata: Json
  user_metadata: Json
  identities: GoTrueIdentity[]
  created_at: string
  updated_at: string
  banned_until?: string
  is_anonymous: boolean
}

export interface GoTrueIdentity {
  identity_id: string
  id: string
  user_id: string
  identity_data: Json
  provider: string
  last_sign_in_at?: string
  created_at: string
  updated_at: string
  email?: string
}

const iso = (date: Date | null): string | undefined =>
  date === null ? undefined : date.toISOString()

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T
}

export function identityJson(row: IdentityRow): GoTrueIdentity {
  return withoutUndefined({
    identity_id: row.id,
    id: row.provider_id,
    user_id: row.user_id,
    identity_data: row.identity_data,
    provider: row.provider,
    last_sign_in_at: iso(row.last_sign_in_at),
    created_at: iso(row.created_at) ?? '',
    updated_at: iso(row.updated_at) ?? '',
    email: row.email ?? undefined,
  })
}

export function userJson(user: UserRow, identities: readonly IdentityRow[]): GoTrueUser {
  return withoutUndefined({
    id: user.id,
    aud: user.aud ?? '',
    role: user.role ?? '',
    email: user.email ?? '',
    email_confirmed_at: iso(user.email_confirmed_at),
    phone: user.phone ?? '',
    confirmation_sent_at: iso(user.confirmation_sent_at),
    confirmed_at: iso(user.confirmed_at),
    recovery_sent_at: iso(user.recovery_sent_at),
    new_email:
      user.email_change !== null && user.email_change !== '' ? user.email_change : undefined,
    email_change_sent_at: iso(user.email_change_sent_at),
    last_sign_in_at: iso(user.last_sign_in_at),
    app_metadata: user.raw_app_meta_data ?? {},
    user_metadata: user.raw_user_meta_data ?? {},
    identities: identities.map(identityJson),
    created_at: iso(user.created_at) ?? '',
    updated_at: iso(user.updated_at) ?? '',
    banned_until: iso(user.banned_until),
    is_anonymous: user.is_anonymous,
  })
}

export async function findUserById(
  db: SqlQueryable,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(
    `select ${userColumns} from auth.users where id = $1${options.forUpdate === true ? ' for update' : ''}`,
    [id],
  )
  return rows[0] ?? null
}

export async function findUserByEmail(
  db: SqlQueryable,
  email: string,
  options: { forUpdate?: boolean } = {},
): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(
    `select ${userColumns} from auth.users where email = $1 and is_sso_user = false${options.forUpdate === true ? ' for update' : ''}`,
    [email],
  )
  return rows[0] ?? null
}

export async function findIdentities(db: SqlQueryable, userId: string): Promise<IdentityRow[]> {
  const { rows } = await db.query<IdentityRow>(
    `select id, provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at, email
     from auth.identities where user_id = $1 order by created_at, id`,
    [userId],
  )
  return rows
}

/** The user and their identities, serialised. */
export async function loadUserJson(db: SqlQueryable, user: UserRow): Promise<GoTrueUser> {
  return userJson(user, await findIdentities(db, user.id))
}

/** GoTrue merges metadata updates key by key; a `null` value removes the key. */
export function mergeMetadata(current: Json | null, update: Json): Json {
  const merged: Json = { ...(current ?? {}) }
  for (const [key, value] of Object.entries(update)) {
    if (value === null) delete merged[key]
    else merged[key] = value
  }
  return merged
}

export function isBanned(user: UserRow, now: Date): boolean {
  return user.banned_until !== null && user.banned_until.getTime() > now.getTime()
}

/** `auth.users.instance_id` of every user of a single-tenant GoTrue. */
const instanceId = '00000000-0000-0000-0000-000000000000'

export interface NewUser {
  email: string
  /** '' when the user has no password (created by a magic link). */
  passwordHash: string
  userMetadata: Json
  appMetadata?: Json
  confirmedAt: Date | null
  now: Date
}

/** Inserts a user with its `email` identity, as GoTrue's sign-up does; returns the id. */
export async function insertUser(tx: SqlQueryable, input: NewUser): Promise<string> {
  const id = crypto.randomUUID()
  const verified = input.confirmedAt !== null
  const identityData = {
    sub: id,
    email: input.email,
    email_verified: verified,
    phone_verified: false,
  }
  const userMetadata = { ...input.userMetadata, ...identityData }
  const appMetadata = { provider: 'email', providers: ['email'], ...(input.appMetadata ?? {}) }
  await tx.query(
    `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
       raw_app_meta_data, raw_user_meta_data, created_at, updated_at, is_anonymous, is_sso_user,
       confirmation_token, recovery_token, email_change, email_change_token_new)
     values ($1, $2, 'authenticated', 'authenticated', $3, $4, $5, $6::jsonb, $7::jsonb, $8, $8, false, false, '', '', '', '')`,
    [
      instanceId,
      id,
      input.email,
      input.passwordHash,
      input.confirmedAt,
      JSON.stringify(appMetadata),
      JSON.stringify(userMetadata),
      input.now,
    ],
  )
  await tx.query(
    `insert into auth.identities (id, provider_id, user_id, identity_data, provider, created_at, updated_at)
     values ($1, $2, $3, $4::jsonb, 'email', $5, $5)`,
    [crypto.randomUUID(), id, id, JSON.stringify(identityData), input.now],
  )
  return id
}

/** Marks the email confirmed, in the user's metadata and identity too (GoTrue's `Confirm`). */
export async function confirmUser(tx: SqlQueryable, userId: string, now: Date): Promise<void> {
  await tx.query(
    `update auth.users set email_confirmed_at = coalesce(email_confirmed_at, $2), updated_at = $2,
       raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || '{"email_verified": true}'::jsonb
     where id = $1`,
    [userId, now],
  )
  await tx.query(
    `update auth.identities set identity_data = identity_data || '{"email_verified": true}'::jsonb, updated_at = $2
     where user_id = $1 and provider = 'email'`,
    [userId, now],
  )
}

/** Replaces the address (confirmed email change, admin update) everywhere GoTrue keeps it. */
export async function setUserEmail(
  tx: SqlQueryable,
  userId: string,
  email: string,
  now: Date,
): Promise<void> {
  await tx.query(
    `update auth.users set email = $2::text, email_change = '', email_change_token_new = '', email_change_sent_at = null,
       email_confirmed_at = coalesce(email_confirmed_at, $3), updated_at = $3,
       raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || jsonb_build_object('email', $2::text)
     where id = $1`,
    [userId, email, now],
  )
  await tx.query(
    `update auth.identities set identity_data = identity_data || jsonb_build_object('email', $2::text), updated_at = $3
     where user_id = $1 and provider = 'email'`,
    [userId, email, now],
  )
}

/** Postgres `unique_violation`, from either driver. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === '23505'
}
