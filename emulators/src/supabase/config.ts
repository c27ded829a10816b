import type { Clock } from './clock.ts'
import { systemClock } from './clock.ts'

/**
 * The Supabase CLI's well-known local API keys. Anyone who ran `supabase start` recognises them;
 * they are not secrets. Any string works: pass your own in `apiKeys`.
 */
export const defaultApiKeys = {
  anon: 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH',
  serviceRole: 'sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz',
} as const

/**
 * Where email links point. Go-template-style placeholders, as in Supabase's email templates:
 * `{{ .SiteURL }}`, `{{ .TokenHash }}`, `{{ .Type }}`, `{{ .RedirectTo }}`, `{{ .Token }}`,
 * `{{ .Email }}`, `{{ .ConfirmationURL }}` (GoTrue's own `GET /verify` link). The default sends the
 * user to the app, which calls `verifyOtp({ token_hash, type })` — it works on another device too.
 */
export const defaultEmailLinkTemplate =
  '{{ .SiteURL }}/auth/confirm?token_hash={{ .TokenHash }}&type={{ .Type }}&next={{ .RedirectTo }}'

export interface AuthConfig {
  /** The app's URL: default redirect and `{{ .SiteURL }}` in email links. */
  siteUrl: string
  /** Other allowed `redirect_to` values; `*` and `**` globs as in GoTrue. */
  additionalRedirectUrls: string[]
  /** `iss` of access tokens: the public URL of `/auth/v1`. */
  jwtIssuer: string
  /** Access token lifetime. supabase-js refreshes 90 s before expiry: keep it well above that. */
  jwtExpirySeconds: number
  apiKeys: { anon: string; serviceRole: string }
  /** Sign-up returns a session at once, without a confirmation email (GoTrue's `MAILER_AUTOCONFIRM`). */
  mailerAutoconfirm: boolean
  disableSignup: boolean
  /** How long an email link or code stays valid. */
  otpExpirySeconds: number
  /** Minimum time between two emails of one kind to one address (GoTrue's `SMTP_MAX_FREQUENCY`). */
  emailRateLimitSeconds: number
  /** A refresh token already rotated may be replayed this long (concurrent tabs, lost responses). */
  refreshTokenReuseIntervalSeconds: number
  passwordMinLength: number
  /** Character sets a password must each hit, e.g. `['abcdefghijklmnopqrstuvwxyz', '0123456789']`. */
  passwordRequiredCharacters: string[]
  /** bcrypt cost (GoTrue uses 10); tests lower it to stay fast. */
  bcryptCost: number
  emailLinkTemplate: string
  mailFrom: string
  clock: Clock
}

export type AuthConfigInput = Partial<AuthConfig> & Pick<AuthConfig, 'siteUrl' | 'jwtIssuer'>

/** Fills in GoTrue's defaults (an option given as `undefined` keeps its default). */
export function resolveAuthConfig(input: AuthConfigInput): AuthConfig {
  const given = Object.fromEntries(
    Object.entries(input).filter(([, value]) => value !== undefined),
  ) as AuthConfigInput
  return {
    additionalRedirectUrls: [],
    jwtExpirySeconds: 3600,
    apiKeys: { ...defaultApiKeys },
    mailerAutoconfirm: false,
    disableSignup: false,
    otpExpirySeconds: 3600,
    emailRateLimitSeconds: 30,
    refreshTokenReuseIntervalSeconds: 10,
    passwordMinLength: 6,
    passwordRequiredCharacters: [],
    bcryptCost: 10,
    emailLinkTemplate: defaultEmailLinkTemplate,
    mailFrom: 'Tessera <no-reply@tessera.local>',
    clock: systemClock,
    ...given,
    siteUrl: input.siteUrl.replace(/\/+$/, ''),
    jwtIssuer: input.jwtIssuer.replace(/\/+$/, ''),
  }
}
