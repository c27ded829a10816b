import type { ReactNode } from 'react'
import type { SessionState } from '@tessera/contracts'
import { renderRemotePage, type RenderPageOptions } from '@tessera/plugin-react/testing'

export { apiError, deferred, fakeBff, type ApiCall } from '@tessera/plugin-react/testing'

/** Ada, signed in (as an operator: the BFF decides, the console only shows its answers). */
export const operator = {
  status: 'signed-in',
  user: { id: 'u1', email: 'ada@example.com', displayName: 'Ada Lovelace' },
} satisfies SessionState

/** Renders `node` as a mounted console page would be: StrictMode, the platform, signed in. */
export function renderConsole(node: ReactNode, options: Partial<RenderPageOptions> = {}) {
  return renderRemotePage(
    node,
    { name: 'console' },
    { ...options, path: options.path ?? '/console', session: options.session ?? operator },
  )
}
