import { AppLink } from '@tessera/plugin-react/app-link'
import { authPaths } from '../../../lib/destinations.ts'
import { withNext } from '../../../lib/next-path.ts'
import { useAuthApi } from '../../../lib/use-auth-api.ts'
import { useLeaveWhenSignedIn, useNext } from '../../sign-in/components/sign-in-page.tsx'
import { EmailLinkRequest } from './email-link-request.tsx'

/** `/auth/magic-link`: sign in with a link sent by email, no password. */
export function MagicLinkPage() {
  const api = useAuthApi()
  const next = useNext()
  useLeaveWhenSignedIn(next)
  return (
    <EmailLinkRequest
      title="Sign in with an email link"
      intro="Enter the address of your account. We will email you a link that signs you in."
      formLabel="Email me a sign-in link"
      submitLabel="Email me a link"
      kind="magiclink"
      next={next}
      send={async (email) => {
        return api.sendMagicLink({ email, ...(next ? { next } : {}) })
      }}
      alternatives={
        <AppLink to={withNext(authPaths.signIn, next)}>Sign in with your password instead</AppLink>
      }
    />
  )
}
