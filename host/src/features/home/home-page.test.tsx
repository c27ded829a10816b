// @vitest-environment happy-dom
import { act, cleanup, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import {
  definePlugin,
  type Platform,
  type SessionState,
  type SnapshotRemote,
} from '@tessera/contracts'
import { matchRoute } from '../../lib/router/match-route.ts'
import { createLoadOrder } from '../remotes/load-order.ts'
import { createRemoteLoader } from '../remotes/loader.ts'
import { RemotesContext, type RemotesRuntime } from '../remotes/remotes-context.tsx'
import { HomePage } from './home-page.tsx'

const remote = (name: string, slots: SnapshotRemote['slots']): SnapshotRemote => ({
  name,
  version: '1.0.0',
  entryUrl: `http://cdn.test/${name}/1.0.0/assets/remoteEntry.js`,
  contract: 1,
  basePath: `/${name}`,
  nav: { label: name, order: 10 },
  slots,
  previous: null,
})

const signedIn: SessionState = {
  status: 'signed-in',
  user: { id: 'u1', email: 'ada@example.com', displayName: 'Ada' },
}

afterEach(cleanup)

describe('home.card', () => {
  it('makes / the home page only when some plugin fills home.card', () => {
    const billing = remote('billing', ['header.end'])
    expect(matchRoute('/', [billing])).toEqual({ kind: 'redirect', to: '/billing' })
    expect(matchRoute('/', [billing, remote('notes', ['home.card'])])).toEqual({ kind: 'home' })
  })

  it("shows a card per filling plugin, given the signed-in user, without waiting for a page's remote", async () => {
    const notes = definePlugin({
      name: 'notes',
      contract: 1,
      slots: {
        'home.card': (el, _platform, props) => {
          el.textContent = `3 notes for ${props?.user?.displayName ?? 'a visitor'}`
          return () => el.replaceChildren()
        },
      },
    })
    const runtime: RemotesRuntime = {
      // Far beyond the test: only the home page itself can let the cards load.
      loadOrder: createLoadOrder({ maxWaitMs: 60_000 }),
      loader: createRemoteLoader({
        loadModule: async () => notes,
        report: () => undefined,
        timeoutMs: 200,
        retryDelayMs: 0,
        log: () => undefined,
      }),
      platformFor: (r, version) => ({
        platform: { remote: { name: r.name, version } } as Platform,
        dispose: () => undefined,
      }),
      report: () => undefined,
    }
    const session = { current: () => signedIn, subscribe: () => () => undefined }
    render(
      <RemotesContext value={runtime}>
        <HomePage remotes={[remote('notes', ['home.card']), remote('ai', [])]} session={session} />
      </RemotesContext>,
    )
    expect(screen.getByRole('heading', { level: 1, name: 'Home' })).toBeTruthy()
    await waitFor(() => expect(screen.getByText('3 notes for Ada')).toBeTruthy())
    expect(document.querySelectorAll('[data-tessera-remote]')).toHaveLength(1)
    await act(async () => undefined)
  })
})
