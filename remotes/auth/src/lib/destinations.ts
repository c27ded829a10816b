/** Where people land after signing in when nothing asked for another page. */
export const DEFAULT_DESTINATION = '/assistant'

/** The auth remote's pages, as app paths (the remote is mounted at `/auth`). */
export const authPaths = {
  index: '/auth',
  signIn: '/auth/sign-in',
  signUp: '/auth/sign-up',
  checkEmail: '/auth/check-email',
  magicLink: '/auth/magic-link',
  forgotPassword: '/auth/forgot-password',
  resetPassword: '/auth/reset-password',
  confirm: '/auth/confirm',
  profile: '/auth/profile',
  sessions: '/auth/sessions',
  workspaces: '/auth/workspaces',
  newWorkspace: '/auth/workspaces/new',
} as const

/** A workspace's page: its members, invites and name. */
export const workspacePath = (id: string): string =>
  `${authPaths.workspaces}/${encodeURIComponent(id)}`

/** The page an invite link opens (the email's link points here). */
export const invitePath = (token: string): string => `/auth/invites/${encodeURIComponent(token)}`
