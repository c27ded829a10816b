import { render } from '@testing-library/react'
import { StrictMode } from 'react'
import type { ReactNode } from 'react'
import { entitlementsOf, type SessionState } from '@tessera/contracts'
import { createFakePlatform, type FakePlatform } from '@tessera/remote-build/testing'
import { PlatformProvider } from '@tessera/plugin-react/platform'
import { fakeAssistantBff, type FakeAssistantBff } from './fake-assistant-bff.ts'

export const ada: Extract<SessionState, { status: 'signed-in' }> = {
  status: 'signed-in',
  user: { id: 'u1', email: 'ada@example.com', displayName: 'Ada Lovelace' },
  entitlements: entitlementsOf(null),
}

/** The ai plugin's platform: base path `/assistant`, signed in on Free, talking to `bff`. */
export function assistantPlatform(bff: FakeAssistantBff, route = '/'): FakePlatform {
  const platform = createFakePlatform({
    remote: { name: 'ai', version: '1.0.0' },
    basePath: '/assistant',
    route,
    session: ada,
    fetch: bff.fetch,
  })
  // Navigating inside the assistant moves its route, as the host's router would.
  const navigate = platform.navigate.bind(platform)
  platform.navigate = (to, options) => {
    navigate(to, options)
    const pathname = new URL(to, 'http://localhost').pathname
    if (pathname.startsWith('/assistant'))
      platform.setRoute(pathname.slice('/assistant'.length) || '/')
  }
  return platform
}

/** Renders `node` as the host mounts the plugin: StrictMode, the platform as context. */
export function renderWithPlatform(
  node: ReactNode,
  options: { bff?: FakeAssistantBff; route?: string; platform?: FakePlatform } = {},
) {
  const bff = options.bff ?? fakeAssistantBff()
  const platform = options.platform ?? assistantPlatform(bff, options.route)
  const view = render(
    <StrictMode>
      <PlatformProvider platform={platform}>{node}</PlatformProvider>
    </StrictMode>,
  )
  return { bff, platform, view }
}
