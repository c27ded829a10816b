import { AppLink } from '@tessera/plugin-react/app-link'
import { authPaths } from '../../../lib/destinations.ts'
import { withNext } from '../../../lib/next-path.ts'
import { useClient } from '../../../lib/use-client.ts'
import { useLeaveWhenSignedIn, useNext } from '../../sign-in/components/sign-in-page.tsx'
import { EmailLinkRequest } from './email-link-request.tsx'

/** `/auth/magic-link`: sign in with a link sent by email, no password. */
export function MagicLinkPage() {
  const client = useClient()
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
        const response = await client.api.auth['magic-link'].$post({
          json: { email, ...(next ? { next } : {}) },
        })
        return response.json()
      }}
      alternatives={
        <AppLink to={withNext(authPaths.signIn, next)}>Sign in with your password instead</AppLink>
      }
    />
  )
}
