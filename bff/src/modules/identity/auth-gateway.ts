/**
 * Supabase Auth (GoTrue) as the BFF uses it, through `@supabase/supabase-js`'s auth client. Only
 * the auth client is used: it is Web-standard (fetch only), where `createClient` also builds a
 * realtime client that needs a WebSocket implementation on Node 20.
 *
 * A fresh client per call: the client keeps one session in memory, and the BFF acts for many
 * users at once. Errors are supabase-js's (`AuthApiError` and friends); `auth-errors.ts` maps
 * them to the catalogue.
 */
import { AuthClient } from '@supabase/supabase-js'
import type { AuthError, Session, SupportedStorage, User } from '@supabase/supabase-js'
import type { ConfirmType } from '@tessera/contracts'
import type { AuthUserSnapshot } from '../../platform/db/schema.ts'

export interface AuthTokens {
  accessToken: string
  refreshToken: string
  /** When the access token expires, in seconds since the epoch. */
  expiresAt: number
}

export interface AuthSession extends AuthTokens {
  user: AuthUserSnapshot
}

export interface AuthGateway {
  /** Signs up; null when Auth sent a confirmation email (no session until it is opened). */
  signUp(input: {
    email: string
    password: string
    displayName?: string
    redirectTo: string
  }): Promise<AuthSession | null>
  signInWithPassword(email: string, password: string): Promise<AuthSession>
  /** Redeems an email link (`verifyOtp({ token_hash, type })`): every type starts a session. */
  verifyEmailLink(tokenHash: string, type: ConfirmType): Promise<AuthSession>
  /** Sends a sign-in link to an existing account; never creates one. */
  sendMagicLink(email: string, redirectTo: string): Promise<void>
  sendPasswordRecovery(email: string, redirectTo: string): Promise<void>
  refresh(refreshToken: string): Promise<AuthSession>
  /**
   * Changes the email (confirmed by a link to the new address) or the password. Returns the
   * tokens too: they are the ones given, unless the client had to refresh them first.
   */
  updateUser(
    tokens: AuthTokens,
    changes: { email?: string; password?: string },
    redirectTo?: string,
  ): Promise<{ user: AuthUserSnapshot; tokens: AuthTokens }>
  signOut(accessToken: string, scope: 'local' | 'global' | 'others'): Promise<void>
}

export interface SupabaseAuthGatewayOptions {
  /** The project URL (`SUPABASE_URL`); Auth is under `/auth/v1`. */
  url: string
  /** The publishable (anon) key: Auth's user endpoints need nothing more. */
  anonKey: string
  fetch?: typeof fetch
  /** Each call to Auth gives up after this long (ms); a hung Auth must not hang requests. */
  timeoutMs?: number
}

/** supabase-js's in-memory storage shape, with the session the call should act with. */
function sessionStorage(initial: string | null): SupportedStorage & { value(): string | null } {
  let stored = initial
  return {
    getItem: () => stored,
    setItem: (_key: string, value: string) => {
      stored = value
    },
    removeItem: () => {
      stored = null
    },
    value: () => stored,
  }
}

const storageKey = 'tessera-bff'

function metadataString(metadata: Record<string, unknown> | undefined, key: string): string | null {
  const value = metadata?.[key]
  return typeof value === 'string' && value !== '' ? value : null
}

/** The parts of an Auth user the BFF keeps and shows. */
export function snapshotOf(user: User): AuthUserSnapshot {
  return {
    id: user.id,
    email: user.email ?? '',
    emailConfirmedAt: user.email_confirmed_at ?? null,
    pendingEmail: user.new_email !== undefined && user.new_email !== '' ? user.new_email : null,
    createdAt: user.created_at,
    lastSignInAt: user.last_sign_in_at ?? null,
    signUpDisplayName: metadataString(user.user_metadata, 'display_name'),
  }
}

function sessionOf(session: Session): AuthSession {
  return {
    accessToken: session.access_token,
    refreshToken: session.refresh_token,
    // GoTrue sends expires_at; supabase-js fills it from expires_in when it does not.
    expiresAt: session.expires_at ?? Math.floor(Date.now() / 1000) + session.expires_in,
    user: snapshotOf(session.user),
  }
}

/** supabase-js answers `{ data, error }`; the BFF throws the error instead. */
function check<R extends { data: unknown; error: AuthError | null }>(
  result: R,
): Extract<R, { error: null }>['data'] {
  if (result.error !== null) throw result.error
  return result.data as Extract<R, { error: null }>['data']
}

/** A session answer that must carry a session (sign-in, verify, refresh). */
function requireSession(data: { session: Session | null }, what: string): AuthSession {
  if (data.session === null) throw new Error(`Supabase Auth answered ${what} without a session.`)
  return sessionOf(data.session)
}

export function createSupabaseAuthGateway(options: SupabaseAuthGatewayOptions): AuthGateway {
  const url = `${options.url.replace(/\/+$/, '')}/auth/v1`
  const baseFetch = options.fetch ?? fetch
  const timeoutMs = options.timeoutMs ?? 10_000
  const timedFetch: typeof fetch = (input, init) =>
    baseFetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(timeoutMs) })
  const client = (storage?: SupportedStorage) =>
    new AuthClient({
      url,
      headers: { apikey: options.anonKey, Authorization: `Bearer ${options.anonKey}` },
      storageKey,
      storage: storage ?? sessionStorage(null),
      // The BFF refreshes tokens itself, one refresh per session (see services/sessions.ts).
      autoRefreshToken: false,
      persistSession: storage !== undefined,
      detectSessionInUrl: false,
      fetch: timedFetch,
    })

  return {
    async signUp(input) {
      const data = check(
        await client().signUp({
          email: input.email,
          password: input.password,
          options: {
            emailRedirectTo: input.redirectTo,
            data: input.displayName === undefined ? {} : { display_name: input.displayName },
          },
        }),
      )
      return data.session === null ? null : sessionOf(data.session)
    },

    async signInWithPassword(email, password) {
      return requireSession(
        check(await client().signInWithPassword({ email, password })),
        'a password sign-in',
      )
    },

    async verifyEmailLink(tokenHash, type) {
      return requireSession(
        check(await client().verifyOtp({ token_hash: tokenHash, type })),
        'an email link',
      )
    },

    async sendMagicLink(email, redirectTo) {
      check(
        await client().signInWithOtp({
          email,
          options: { emailRedirectTo: redirectTo, shouldCreateUser: false },
        }),
      )
    },

    async sendPasswordRecovery(email, redirectTo) {
      check(await client().resetPasswordForEmail(email, { redirectTo }))
    },

    async refresh(refreshToken) {
      return requireSession(
        check(await client().refreshSession({ refresh_token: refreshToken })),
        'a refresh',
      )
    },

    async updateUser(tokens, changes, redirectTo) {
      // updateUser acts on the client's session: hand it ours through its storage, and read it
      // back afterwards in case the client refreshed it (it does so within 90 s of expiry).
      const storage = sessionStorage(
        JSON.stringify({
          access_token: tokens.accessToken,
          refresh_token: tokens.refreshToken,
          expires_at: tokens.expiresAt,
          expires_in: Math.max(0, tokens.expiresAt - Math.floor(Date.now() / 1000)),
          token_type: 'bearer',
          user: null,
        }),
      )
      const data = check(
        await client(storage).updateUser(
          changes,
          redirectTo === undefined ? {} : { emailRedirectTo: redirectTo },
        ),
      )
      const saved = storage.value()
      const after = saved === null ? null : (JSON.parse(saved) as Partial<Session>)
      const rotated =
        after?.access_token !== undefined &&
        after.refresh_token !== undefined &&
        after.expires_at !== undefined &&
        after.refresh_token !== tokens.refreshToken
          ? {
              accessToken: after.access_token,
              refreshToken: after.refresh_token,
              expiresAt: after.expires_at,
            }
          : tokens
      return { user: snapshotOf(data.user), tokens: rotated }
    },

    async signOut(accessToken, scope) {
      check(await client().admin.signOut(accessToken, scope))
    },
  }
}
