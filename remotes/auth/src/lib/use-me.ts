import { useCallback, useEffect, useState } from 'react'
import type { SignedIn } from '@tessera/contracts/auth'
import { asApiError } from '@tessera/plugin-react/api-error'
import { usePlatform, useSession } from '@tessera/plugin-react/platform'
import { useAuthApi } from './use-auth-api.ts'

export type MeState =
  | { status: 'loading' }
  | { status: 'signed-out' }
  | { status: 'ready'; me: SignedIn }
  | { status: 'failed'; message: string }

/**
 * The full `GET /api/me` (pending email, recovery session, dates) for the account pages; the
 * platform session only carries who is signed in. Read again whenever the session changes.
 */
export function useMe(): { state: MeState; reload: () => Promise<void> } {
  const api = useAuthApi()
  const platform = usePlatform()
  const session = useSession()
  const [state, setState] = useState<MeState>({ status: 'loading' })

  const reload = useCallback(async () => {
    try {
      const body = await api.me()
      setState(body.user === null ? { status: 'signed-out' } : { status: 'ready', me: body })
    } catch (error) {
      const apiError = asApiError(error)
      if (apiError?.code === 'unauthenticated' || apiError?.code === 'session_revoked') {
        setState({ status: 'signed-out' })
        return
      }
      if (apiError === null) console.error('Reading your account failed', error)
      setState({
        status: 'failed',
        message: apiError?.message ?? 'Your account could not be loaded. Try again in a moment.',
      })
    }
  }, [api])

  // Keyed on who is signed in and their name: a USER_UPDATED elsewhere shows up here too.
  const sessionKey =
    session.status === 'signed-in'
      ? `${session.user.id}|${session.user.email}|${session.user.displayName ?? ''}`
      : session.status
  useEffect(() => {
    if (sessionKey === 'loading') return
    void reload()
  }, [reload, sessionKey, platform])

  return { state, reload }
}
