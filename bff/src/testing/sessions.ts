// A signed-in session as the sessions store resolves it, for tests of what is built from one.
// Never imported by the app.
import type { ActiveSession } from '../modules/identity/sessions.ts'

export const testSession: ActiveSession = {
  id: 'session-1',
  userId: 'user-1',
  user: {
    id: 'user-1',
    email: 'ada@example.test',
    emailConfirmedAt: null,
    pendingEmail: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    lastSignInAt: null,
    signUpDisplayName: null,
  },
  tokens: { accessToken: 'access', refreshToken: 'refresh', expiresAt: 0 },
  claims: { sub: 'user-1', role: 'authenticated' },
  recovery: false,
  createdAt: new Date(0),
  lastSeenAt: new Date(0),
}
