import { z } from 'zod/mini'
import { authEventNames } from './platform.ts'
import { entitlementsSchema } from './plans.ts'
import { plainText } from './text.ts'
import { DISPLAY_NAME_MAX_LENGTH, PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH } from './auth-limits.ts'

/**
 * Roles a user can hold. Granted by operators (CLI or console), never by the user. Here, not in
 * console.ts: every page reads the signed-in user, and only the console needs the console's schemas.
 */
export const userRoles = ['operator'] as const
export type UserRole = (typeof userRoles)[number]

export { DISPLAY_NAME_MAX_LENGTH, PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH }

// What a display name refuses beyond the text rule: it is one line shown to others, so no tab
// or line break, no C1 control, and no bidirectional override (they let a name display as
// something other than what it is).
const notInDisplayName = /[\t\n\r\u0080-\u009f\u202a-\u202e\u2066-\u2069]/u

/**
 * An email address as people type it: trimmed and lowercased before it is checked; `missing` is
 * the sentence for no address at all.
 */
export function emailAddressSchema(missing: string) {
  return z.pipe(
    z
      .string({ error: missing })
      .check(
        z.trim(),
        z.toLowerCase(),
        plainText('An email address cannot contain control characters.'),
      ),
    z
      .email({ error: 'Enter a valid email address, like name@example.com.' })
      .check(z.maxLength(255, 'An email address can have at most 255 characters.')),
  )
}

/** The person's own email address. */
export const emailSchema = emailAddressSchema('Enter your email address.')

/** Any password (signing in): present and encodable, nothing about its strength. */
export const passwordSchema = z.string({ error: 'Enter your password.' }).check(
  z.minLength(1, 'Enter your password.'),
  z.refine(
    (value) => new TextEncoder().encode(value).length <= PASSWORD_MAX_BYTES,
    `A password can have at most ${PASSWORD_MAX_BYTES} bytes.`,
  ),
  plainText('The password contains a character that cannot be used.'),
)

/** A password being chosen (sign-up, new password): at least `PASSWORD_MIN_LENGTH` characters. */
export const newPasswordSchema = passwordSchema.check(
  z.refine(
    (value) => [...value].length >= PASSWORD_MIN_LENGTH,
    `Choose a password of at least ${PASSWORD_MIN_LENGTH} characters.`,
  ),
)

/** A display name: trimmed, 1–80 characters, printable. */
export const displayNameSchema = z.string({ error: 'Enter a display name.' }).check(
  z.trim(),
  z.minLength(1, 'Enter a display name.'),
  z.maxLength(
    DISPLAY_NAME_MAX_LENGTH,
    `A display name can have at most ${DISPLAY_NAME_MAX_LENGTH} characters.`,
  ),
  plainText('A display name cannot contain control characters.'),
  z.refine(
    (value) => !notInDisplayName.test(value),
    'A display name cannot contain control characters.',
  ),
)

/**
 * Where to go after following an email link: a path on the app (`/billing`), never another
 * site. It travels in the link as `next`.
 */
export const nextPathSchema = z
  .string()
  .check(
    z.maxLength(512, 'The return path is too long.'),
    plainText(),
    z.regex(
      /^\/(?![/\\])[\x21-\x7e]*$/,
      'The return path must be a path on this site, like /billing.',
    ),
  )

/** Email link types the BFF redeems (`POST /api/auth/confirm`). */
export const confirmTypes = ['signup', 'magiclink', 'recovery', 'email_change', 'email'] as const
export type ConfirmType = (typeof confirmTypes)[number]

/** `POST /api/auth/sign-up`. */
export const signUpBodySchema = z.strictObject({
  email: emailSchema,
  password: newPasswordSchema,
  displayName: z.optional(displayNameSchema),
  next: z.optional(nextPathSchema),
})
export type SignUpBody = z.infer<typeof signUpBodySchema>

/** `POST /api/auth/sign-in`. */
export const signInBodySchema = z.strictObject({ email: emailSchema, password: passwordSchema })
export type SignInBody = z.infer<typeof signInBodySchema>

/** `POST /api/auth/magic-link` and `POST /api/auth/recover`. */
export const emailLinkBodySchema = z.strictObject({
  email: emailSchema,
  next: z.optional(nextPathSchema),
})
export type EmailLinkBody = z.infer<typeof emailLinkBodySchema>

/** `POST /api/auth/confirm`: the `token_hash` and `type` of an email link. */
export const confirmBodySchema = z.strictObject({
  tokenHash: z
    .string({ error: 'The link is incomplete: it has no token.' })
    .check(
      z.regex(
        /^[A-Za-z0-9_-]{1,128}$/,
        'The link is incomplete or damaged. Open it again from the email.',
      ),
    ),
  type: z.enum(confirmTypes, {
    error: 'The link is incomplete or damaged. Open it again from the email.',
  }),
})
export type ConfirmBody = z.infer<typeof confirmBodySchema>

export const signOutScopes = ['local', 'global'] as const
export type SignOutScope = (typeof signOutScopes)[number]

/** `POST /api/auth/sign-out`: this device (`local`, the default) or every device (`global`). */
export const signOutBodySchema = z.strictObject({
  scope: z._default(z.enum(signOutScopes), 'local'),
})

/** `PATCH /api/me/profile`. */
export const updateProfileBodySchema = z.strictObject({ displayName: displayNameSchema })
export type UpdateProfileBody = z.infer<typeof updateProfileBodySchema>

/** `POST /api/me/email`: the new address gets a confirmation link. */
/**
 * `POST /api/me/email`. `currentPassword` is required unless the session came from a
 * password-recovery link: a stolen session alone cannot move the account to another address.
 */
export const changeEmailBodySchema = z.strictObject({
  email: emailSchema,
  currentPassword: z.optional(passwordSchema),
  next: z.optional(nextPathSchema),
})
export type ChangeEmailBody = z.infer<typeof changeEmailBodySchema>

/**
 * `POST /api/me/password`. `currentPassword` is required unless the session came from a
 * password-recovery link (`session.recovery` in `GET /api/me`).
 */
export const changePasswordBodySchema = z.strictObject({
  password: newPasswordSchema,
  currentPassword: z.optional(passwordSchema),
})
export type ChangePasswordBody = z.infer<typeof changePasswordBodySchema>

/** The signed-in user as the browser sees it (never a token). */
export const meUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  displayName: z.nullable(z.string()),
  /** When the address was confirmed (ISO 8601); null until then. */
  emailConfirmedAt: z.nullable(z.string()),
  /** An address change waiting for its confirmation link to be opened. */
  pendingEmail: z.nullable(z.string()),
  createdAt: z.string(),
  lastSignInAt: z.nullable(z.string()),
})
export type MeUser = z.infer<typeof meUserSchema>

export const profileSchema = z.object({
  displayName: z.nullable(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type Profile = z.infer<typeof profileSchema>

export const currentSessionSchema = z.object({
  id: z.string(),
  /** True after a password-recovery link: a new password may be set without the old one. */
  recovery: z.boolean(),
  createdAt: z.string(),
})

/** `GET /api/me` when signed in; also the answer of every route that signs in. */
export const signedInSchema = z.object({
  user: meUserSchema,
  profile: profileSchema,
  session: currentSessionSchema,
  entitlements: entitlementsSchema,
  /**
   * The roles the user holds (`operator`), on `GET /api/me`. Optional: the answers of the routes
   * that sign in leave it out, and the host reads `/api/me` after them.
   */
  roles: z.optional(z.array(z.enum(userRoles))),
  /**
   * The session's current workspace, on `GET /api/me` (for the header). Optional like `roles`,
   * and absent from BFFs before workspaces.
   */
  workspace: z.optional(
    z.object({
      id: z.string(),
      name: z.string(),
      kind: z.enum(['personal', 'team']),
      role: z.enum(['owner', 'admin', 'member']),
    }),
  ),
})
export type SignedIn = z.infer<typeof signedInSchema>

/** `GET /api/me`: `{ user: null }` for a visitor who is not signed in (200, not 401). */
export const meResponseSchema = z.union([
  signedInSchema,
  z.object({
    user: z.null(),
    /** The cookie's session ended: signed out from elsewhere, or expired (once; the cookie goes). */
    ended: z.optional(z.enum(['revoked', 'expired'])),
  }),
])
export type MeResponse = z.infer<typeof meResponseSchema>

/** Answer of routes that send an email: what the UI should tell the person. */
export const emailSentSchema = z.object({
  status: z.literal('check_email'),
  email: z.string(),
})

/** How a session signed in: a password, or which email link. */
export const signInMethods = [
  'password',
  'magic_link',
  'email_confirmation',
  'password_reset',
] as const
export type SignInMethod = (typeof signInMethods)[number]

/** One of the user's signed-in devices (`GET /api/me/sessions`). */
export const deviceSessionSchema = z.object({
  id: z.string(),
  /** "Firefox on Linux", from the User-Agent when the session started. */
  device: z.string(),
  /** Browser and main version ("Firefox 140"); null when the User-Agent names none we know. */
  browser: z.nullable(z.string()),
  /** System, with its version where that means something ("Android 14", "macOS"); or null. */
  os: z.nullable(z.string()),
  /** How the session signed in; null for sessions from before this was kept. */
  signInMethod: z.nullable(z.enum(signInMethods)),
  /** The client address the session was last seen from (its sign-in address until then). */
  lastSeenAddress: z.nullable(z.string()),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  /** The session of this request. */
  current: z.boolean(),
})
export type DeviceSession = z.infer<typeof deviceSessionSchema>

export const deviceSessionListSchema = z.object({ sessions: z.array(deviceSessionSchema) })

/**
 * Why a session ended: `signed_out` by itself (a tab of it signed out, or signed in again),
 * `revoked` from elsewhere (another session signed it out, signed out everywhere or changed the
 * password; or Auth ended it), `expired` (its lifetime or idle timeout).
 */
export const signOutReasons = ['signed_out', 'revoked', 'expired'] as const
export type SignOutReason = (typeof signOutReasons)[number]

/** The live event type carrying auth events on `/api/events`. */
export const AUTH_EVENT_TYPE = 'auth'

/**
 * `data` of an `auth` live event, sent to every tab of the user on every device. `sessionId`
 * names the session the event is about (null for the whole account, as USER_UPDATED): a tab whose
 * session is another one takes it as news of another device. `user` is null for SIGNED_OUT and
 * TOKEN_REFRESHED.
 */
export const authEventDataSchema = z.object({
  event: z.enum(authEventNames),
  sessionId: z.nullable(z.string()),
  user: z.nullable(meUserSchema),
  /** Why a session ended, for SIGNED_OUT (absent from BFFs older than it). */
  reason: z.optional(z.enum(signOutReasons)),
})
export type AuthEventData = z.infer<typeof authEventDataSchema>
