import { AppLink } from '@tessera/plugin-react/app-link'
import { authPaths } from '../../../lib/destinations.ts'
import { withNext } from '../../../lib/next-path.ts'
import { useAuthApi } from '../../../lib/use-auth-api.ts'
import { EmailLinkRequest } from '../../email-links/components/email-link-request.tsx'
import { useNext } from '../../sign-in/components/sign-in-page.tsx'

/** `/auth/forgot-password`: asks for a reset link. The answer is the same for every address. */
export function ForgotPasswordPage() {
  const api = useAuthApi()
  const next = useNext()
  return (
    <EmailLinkRequest
      title="Reset your password"
      intro="Enter the address of your account. If it has one, we will email you a link to choose a new password."
      formLabel="Ask for a reset link"
      submitLabel="Email me a reset link"
      kind="recovery"
      next={next}
      send={async (email) => {
        return api.sendRecoveryLink({ email, next: authPaths.resetPassword })
      }}
      alternatives={
        <>
          Remembered it? <AppLink to={withNext(authPaths.signIn, next)}>Sign in</AppLink>
        </>
      }
    />
  )
}
