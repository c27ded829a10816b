import { useEffect, useState } from 'react'
import type { ReactNode } from 'react'
import { AppLink } from '@tessera/plugin-react/app-link'
import { deferred } from '@tessera/plugin-react/deferred'
import { authPaths } from '../../../lib/destinations.ts'
import { usePlatform, useRoute, useSession } from '@tessera/plugin-react/platform'
import { ConfirmPage } from '../../email-links/components/confirm-page.tsx'
import { CheckEmailPage } from '../../email-links/components/check-email-page.tsx'
import { MagicLinkPage } from '../../email-links/components/magic-link-page.tsx'
import { ProfilePage } from '../../profile/components/profile-page.tsx'
import { ForgotPasswordPage } from '../../recovery/components/forgot-password-page.tsx'
import { ResetPasswordPage } from '../../recovery/components/reset-password-page.tsx'
import { SessionsPage } from '../../sessions/components/sessions-page.tsx'
import { SignInPage } from '../../sign-in/components/sign-in-page.tsx'
import { SignUpPage } from '../../sign-up/components/sign-up-page.tsx'
import { SentEmailProvider } from '../sent-email.tsx'
import { AuthPage, HeadingFocusContext, Progress } from './auth-page.tsx'
import '../../forms/forms.css'
import '../auth-pages.css'
import '../../workspaces/workspaces.css'

// The workspace and invite pages load on their first visit: the sign-in page stays small.
const WorkspaceRoutes = deferred(() =>
  import('../../workspaces/components/workspace-routes.tsx').then((module) => module.default),
)

/** Whether a route is one of the workspace pages (`/workspaces…`, `/invites/<token>`). */
const isWorkspaceRoute = (route: string): boolean =>
  route === '/workspaces' || route.startsWith('/workspaces/') || route.startsWith('/invites/')

function WorkspacePages({ route }: { route: string }) {
  const title = route.startsWith('/invites/') ? 'Your invite' : 'Your workspaces'
  return (
    <WorkspaceRoutes
      route={route}
      fallback={
        <AuthPage title={title} width="wide">
          <Progress>Loading…</Progress>
        </AuthPage>
      }
    />
  )
}

const pages: Record<string, () => ReactNode> = {
  '/sign-in': () => <SignInPage />,
  '/sign-up': () => <SignUpPage />,
  '/check-email': () => <CheckEmailPage />,
  '/magic-link': () => <MagicLinkPage />,
  '/forgot-password': () => <ForgotPasswordPage />,
  '/reset-password': () => <ResetPasswordPage />,
  '/confirm': () => <ConfirmPage />,
  '/profile': () => <ProfilePage />,
  '/sessions': () => <SessionsPage />,
}

/** `/auth` itself: the profile when signed in, sign-in otherwise. */
function AccountIndex() {
  const platform = usePlatform()
  const session = useSession()
  useEffect(() => {
    if (session.status === 'loading') return
    platform.navigate(session.status === 'signed-in' ? authPaths.profile : authPaths.signIn, {
      replace: true,
    })
  }, [session.status, platform])
  return (
    <AuthPage title="Your account">
      <Progress>Checking your session…</Progress>
    </AuthPage>
  )
}

function NotFound() {
  return (
    <AuthPage title="Page not found" intro="There is no account page at this address.">
      <p>
        <AppLink to={authPaths.index}>Go to your account</AppLink>
      </p>
    </AuthPage>
  )
}

/** Every page under `/auth`, chosen by the sub-route the platform reports. */
export default function AuthRoutes() {
  const route = useRoute()
  // Focus moves to each page's heading after the first in-app move, not on the first page shown
  // (state adjusted during render, React's pattern for "changed since last render").
  const [focus, setFocus] = useState({ firstRoute: route, moved: false })
  if (!focus.moved && route !== focus.firstRoute) setFocus({ firstRoute: route, moved: true })
  const page =
    route === '/' ? (
      <AccountIndex />
    ) : isWorkspaceRoute(route) ? (
      <WorkspacePages route={route} />
    ) : (
      (pages[route]?.() ?? <NotFound />)
    )
  return (
    <SentEmailProvider>
      <HeadingFocusContext value={focus.moved || route !== focus.firstRoute}>
        <div className="auth-pages" key={route}>
          {page}
        </div>
      </HeadingFocusContext>
    </SentEmailProvider>
  )
}
