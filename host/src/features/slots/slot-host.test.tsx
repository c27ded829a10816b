// @vitest-environment happy-dom
import { act, render, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import {
  definePlugin,
  type Platform,
  type SessionUser,
  type SlotName,
  type SnapshotRemote,
} from '@tessera/contracts'
import { createLoadOrder } from '../remotes/load-order.ts'
import { createRemoteLoader } from '../remotes/loader.ts'
import type { RemotesRuntime } from '../remotes/remotes-context.tsx'
import { RemotesContext } from '../remotes/remotes-context.tsx'
import { fillsSlot, holdsSlot, remotesFilling, SlotArea } from './slot-area.tsx'
import { createSlotHost } from './slot-host.tsx'

const ada: SessionUser = { id: 'u1', email: 'ada@example.com', displayName: 'Ada' }

const remote = (name: string, slots: SnapshotRemote['slots']): SnapshotRemote => ({
  name,
  version: '1.0.0',
  entryUrl: `http://cdn.test/${name}/1.0.0/assets/remoteEntry.js`,
  contract: 1,
  basePath: `/${name}`,
  nav: { label: name.charAt(0).toUpperCase() + name.slice(1), order: 10 },
  slots,
  previous: null,
})

const signedIn = () => ({ status: 'signed-in' as const })

function runtimeFor(plugins: Record<string, unknown>): RemotesRuntime {
  const report = () => undefined
  return {
    loadOrder: createLoadOrder({ maxWaitMs: 0 }),
    loader: createRemoteLoader({
      loadModule: async (ref) => {
        const plugin = plugins[ref.name]
        if (plugin === undefined) throw new Error(`no ${ref.name}`)
        return plugin
      },
      report,
      timeoutMs: 200,
      retryDelayMs: 0,
      log: () => undefined,
    }),
    platformFor: (r, version) => ({
      platform: { remote: { name: r.name, version } } as Platform,
      dispose: () => undefined,
    }),
    report,
  }
}

/** A plugin whose one slot shows `text`, and empties it when unmounted. */
const textSlotPlugin = (name: string, slot: SlotName, text: string) =>
  definePlugin({
    name,
    contract: 1,
    slots: {
      [slot]: (el: HTMLElement) => {
        el.textContent = text
        return () => el.replaceChildren()
      },
    },
  })

const cleanups: Array<() => void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup()
  await act(async () => undefined)
  document.body.replaceChildren()
})

describe('platform.slots: account.section inside a plugin page', () => {
  it("shows every filling plugin's panel with the account's props, each isolated from the others", async () => {
    const notes = definePlugin({
      name: 'notes',
      contract: 1,
      slots: {
        'account.section': (el, _platform, props) => {
          el.textContent = `Notes settings for ${props?.user.email ?? 'nobody'}`
          return () => el.replaceChildren()
        },
      },
    })
    const broken = definePlugin({
      name: 'broken',
      contract: 1,
      slots: {
        'account.section': () => {
          throw new Error('boom')
        },
      },
    })
    const host = createSlotHost(() => runtimeFor({ notes, broken }), signedIn)
    host.setRemotes([
      remote('notes', ['account.section']),
      remote('broken', ['account.section']),
      remote('billing', ['header.end']),
    ])
    const el = document.createElement('div')
    document.body.append(el)
    await act(async () => {
      cleanups.push(host.mount('account.section', el, { user: ada }))
    })
    await waitFor(() =>
      expect(el.querySelector('[data-tessera-remote="notes"]')?.textContent).toBe(
        'Notes settings for ada@example.com',
      ),
    )
    // The crashing panel is contained: the others stay, and billing (no such slot) is not asked.
    expect(el.querySelector('[data-tessera-remote="broken"]')).not.toBeNull()
    expect(el.querySelector('[data-tessera-remote="billing"]')).toBeNull()
  })

  it('removes the panels when the plugin page lets go of the area', async () => {
    const notes = textSlotPlugin('notes', 'account.section', 'Notes settings')
    const host = createSlotHost(() => runtimeFor({ notes }), signedIn)
    host.setRemotes([remote('notes', ['account.section'])])
    const el = document.createElement('div')
    document.body.append(el)
    let unmount: () => void = () => undefined
    await act(async () => {
      unmount = host.mount('account.section', el, { user: ada })
    })
    await waitFor(() => expect(el.textContent).toContain('Notes settings'))
    await act(async () => unmount())
    await waitFor(() => expect(el.childElementCount).toBe(0))
  })
})

describe('slots filled for signed-in visitors only', () => {
  const billing: SnapshotRemote = {
    ...remote('billing', ['header.end', 'home.card']),
    signedInSlots: ['header.end'],
  }
  const notes = remote('notes', ['header.end'])
  const signedOut = { status: 'signed-out' } as const

  it('leaves them out once nobody is signed in, so none of the remote is loaded for them', () => {
    expect(fillsSlot(billing, 'header.end', signedOut)).toBe(false)
    expect(remotesFilling('header.end', [billing, notes], signedOut)).toEqual([notes])
    // Its other slots are everyone's.
    expect(fillsSlot(billing, 'home.card', signedOut)).toBe(true)
  })

  it('keeps them while the session loads and for a signed-in visitor', () => {
    expect(fillsSlot(billing, 'header.end', { status: 'loading' })).toBe(true)
    expect(fillsSlot(billing, 'header.end', signedIn())).toBe(true)
    expect(fillsSlot(billing, 'account.section', signedIn())).toBe(false)
  })

  it('mounts no outlet for such a slot in a signed-out page', async () => {
    const host = createSlotHost(
      () => runtimeFor({}),
      () => signedOut,
    )
    host.setRemotes([billing])
    const el = document.createElement('div')
    document.body.append(el)
    await act(async () => {
      cleanups.push(host.mount('header.end', el, {}))
    })
    expect(el.querySelector('[data-tessera-remote]')).toBeNull()
  })

  it('holds such a slot, unloaded, while the session is read, and loads it once someone is signed in', async () => {
    expect(holdsSlot(billing, 'header.end', { status: 'loading' })).toBe(true)
    expect(holdsSlot(billing, 'header.end', signedIn())).toBe(false)
    expect(holdsSlot(notes, 'header.end', { status: 'loading' })).toBe(false)
    const plugin = textSlotPlugin('billing', 'header.end', 'Pro plan')
    const runtime = runtimeFor({ billing: plugin })
    const asked: string[] = []
    const loader = runtime.loader
    const counted: RemotesRuntime = {
      ...runtime,
      loader: { ...loader, load: (ref) => (asked.push(ref.name), loader.load(ref)) },
    }
    const view = (status: 'loading' | 'signed-in') => (
      <RemotesContext value={counted}>
        <SlotArea slot="header.end" remotes={[billing]} session={{ status }} props={{}} />
      </RemotesContext>
    )
    const { container, rerender, unmount } = render(view('loading'))
    cleanups.push(unmount)
    await act(async () => undefined)
    expect(asked).toEqual([])
    expect(container.querySelector('.host-slot-skeleton')).not.toBeNull()
    rerender(view('signed-in'))
    await waitFor(() => expect(container.textContent).toContain('Pro plan'))
    expect(asked).toEqual(['billing'])
  })
})
