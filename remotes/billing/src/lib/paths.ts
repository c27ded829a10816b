/** The billing remote's pages, as app paths (the remote is mounted at `/billing`). */
export const billingPaths = {
  overview: '/billing',
  plans: '/billing/plans',
  checkoutReturn: '/billing/return',
} as const

/** Pages of other remotes this one links to; reached through the platform's navigation only. */
export const otherPaths = {
  signIn: '/auth/sign-in',
  signUp: '/auth/sign-up',
  assistant: '/assistant',
} as const

/** An app path carrying `next` along (`/auth/sign-in?next=%2Fbilling%2Fplans`). */
export function withNext(path: string, next: string): string {
  return `${path}?${new URLSearchParams({ next }).toString()}`
}
