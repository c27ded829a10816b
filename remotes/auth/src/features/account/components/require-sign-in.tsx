import { useEffect, useRef } from 'react'
import type { ReactNode } from 'react'
import { authPaths } from '../../../lib/destinations.ts'
import { withNext } from '../../../lib/next-path.ts'
import { usePlatform, useRoute, useSession } from '@tessera/plugin-react/platform'
import { AuthPage, Progress } from './auth-page.tsx'

/**
 * Account pages need a signed-in user. The host does not guard the auth remote (it owns sign-in),
 * so these pages send signed-out visitors to sign in themselves, and bring them back after.
 */
export function RequireSignIn({ title, children }: { title: string; children: ReactNode }) {
  const platform = usePlatform()
  const session = useSession()
  const route = useRoute()
  const signedOut = session.status === 'signed-out'
  // Once: the page stays mounted for a moment after the address has moved on.
  const sent = useRef(false)
  useEffect(() => {
    if (!signedOut || sent.current) return
    sent.current = true
    platform.navigate(withNext(authPaths.signIn, `${platform.basePath}${route}`), { replace: true })
  }, [signedOut, platform, route])
  if (session.status !== 'signed-in') {
    return (
      <AuthPage title={title} width="wide">
        <Progress>Checking your session…</Progress>
      </AuthPage>
    )
  }
  return children
}
