import type { ColumnType, Generated, Insertable, Selectable } from 'kysely'

/** Timestamps: written as Date (or left to the default), read back as Date on both drivers. */
type Timestamp = ColumnType<Date, Date | undefined, Date>

/** The user as Supabase Auth last described it, kept on each session (`bff_sessions.auth_user`). */
export interface AuthUserSnapshot {
  id: string
  email: string
  emailConfirmedAt: string | null
  pendingEmail: string | null
  createdAt: string
  lastSignInAt: string | null
  /** `user_metadata.display_name` from sign-up: the profile's first display name. */
  signUpDisplayName: string | null
}

export interface ProfilesTable {
  user_id: string
  display_name: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface BffSessionsTable {
  id: Generated<string>
  user_id: string
  token_hash: string
  access_token: string | null
  refresh_token: string | null
  access_expires_at: Date
  refresh_lease_until: Date | null
  recovery_until: Date | null
  // Written as JSON text (both drivers send it as-is), read back parsed.
  auth_user: ColumnType<AuthUserSnapshot, string, string>
  device: string
  user_agent: string | null
  ip: string | null
  created_at: Timestamp
  last_seen_at: Timestamp
  revoked_at: Date | null
}

/** The application tables of `supabase/migrations`, for the typed query builder. */
export interface Database {
  profiles: ProfilesTable
  bff_sessions: BffSessionsTable
}

export type ProfileRow = Selectable<ProfilesTable>
export type BffSessionRow = Selectable<BffSessionsTable>
export type NewBffSession = Insertable<BffSessionsTable>
