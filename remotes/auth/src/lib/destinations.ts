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
} as const
