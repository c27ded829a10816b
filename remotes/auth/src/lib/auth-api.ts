import type {
  ChangeEmailBody,
  ChangePasswordBody,
  ConfirmBody,
  DeviceSession,
  EmailLinkBody,
  emailSentSchema,
  MeResponse,
  SignedIn,
  SignInBody,
  SignOutScope,
  SignUpBody,
  UpdateProfileBody,
} from '@tessera/contracts/auth'
import type { Platform } from '@tessera/contracts/platform'

/** The answer of a route that sends an email: what the page tells the person. */
export type EmailSent = ReturnType<(typeof emailSentSchema)['parse']>

/**
 * The auth and account routes of the BFF, typed by the contracts' shapes. Every call goes through
 * the platform's `api.fetch` (cookie, CSRF header, catalogue errors thrown as `ApiError`), so a
 * body read here is always the success shape. The BFF validates what it sends against the same
 * contracts, and parsing again here would bring zod into the bundle.
 */
export function createAuthApi(platform: Platform) {
  const json = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const response = await platform.api.fetch(path, init)
    return (await response.json()) as T
  }
  const send = <T>(method: 'POST' | 'PATCH', path: string, body: unknown) =>
    json<T>(path, { method, body: JSON.stringify(body) })

  return {
    me: () => json<MeResponse>('/api/me'),
    signUp: (body: SignUpBody) => send<SignedIn | EmailSent>('POST', '/api/auth/sign-up', body),
    signIn: (body: SignInBody) => send<SignedIn>('POST', '/api/auth/sign-in', body),
    sendMagicLink: (body: EmailLinkBody) => send<EmailSent>('POST', '/api/auth/magic-link', body),
    sendRecoveryLink: (body: EmailLinkBody) => send<EmailSent>('POST', '/api/auth/recover', body),
    confirm: (body: ConfirmBody) => send<SignedIn>('POST', '/api/auth/confirm', body),
    signOut: (scope: SignOutScope) =>
      send<{ status: 'signed_out' }>('POST', '/api/auth/sign-out', { scope }),
    updateProfile: (body: UpdateProfileBody) => send<SignedIn>('PATCH', '/api/me/profile', body),
    changeEmail: (body: ChangeEmailBody) => send<EmailSent>('POST', '/api/me/email', body),
    changePassword: (body: ChangePasswordBody) => send<SignedIn>('POST', '/api/me/password', body),
    sessions: () => json<{ sessions: DeviceSession[] }>('/api/me/sessions'),
    revokeSession: (id: string) =>
      json<{ status: 'revoked'; current: boolean }>(`/api/me/sessions/${encodeURIComponent(id)}`, {
        method: 'DELETE',
      }),
  }
}

export type AuthApi = ReturnType<typeof createAuthApi>
