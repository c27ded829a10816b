import type { ReactNode } from 'react'
import { entitlementsOf, type SessionState } from '@tessera/contracts'
import { renderRemotePage, type RenderPageOptions } from '@tessera/plugin-react/testing'
import { SentEmailProvider } from '../features/account/sent-email.tsx'

export { apiError, deferred, fakeBff, type ApiCall } from '@tessera/plugin-react/testing'

export const ada: SessionState = {
  status: 'signed-in',
  user: { id: 'u1', email: 'ada@example.com', displayName: 'Ada Lovelace' },
}

export const signedInBody = (
  overrides: { recovery?: boolean; pendingEmail?: string | null } = {},
) => ({
  user: {
    id: 'u1',
    email: 'ada@example.com',
    displayName: 'Ada Lovelace',
    emailConfirmedAt: '2025-01-01T00:00:00.000Z',
    pendingEmail: overrides.pendingEmail ?? null,
    createdAt: '2025-01-01T00:00:00.000Z',
    lastSignInAt: '2025-01-02T00:00:00.000Z',
  },
  profile: {
    displayName: 'Ada Lovelace',
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
  },
  session: {
    id: 's1',
    recovery: overrides.recovery ?? false,
    createdAt: '2025-01-02T00:00:00.000Z',
  },
  entitlements: entitlementsOf(null),
})

/**
 * Renders `node` as a mounted auth page would be: StrictMode, the platform, the sent-email
 * memory. `navigate` moves the fake platform's route (and the page's address, for `?next=`).
 */
export function renderPage(node: ReactNode, options: Partial<RenderPageOptions> = {}) {
  return renderRemotePage(
    node,
    {
      name: 'auth',
      wrap: (page) => <SentEmailProvider>{page}</SentEmailProvider>,
    },
    { ...options, path: options.path ?? '/auth/sign-in' },
  )
}
