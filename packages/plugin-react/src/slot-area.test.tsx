// @vitest-environment happy-dom
import { act } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { SessionUser } from '@tessera/contracts/platform'
import type { SlotName, Unmount } from '@tessera/contracts/plugin'
import { createFakePlatform } from '@tessera/remote-build/testing'
import { defineReactPlugin } from './define-react-plugin.tsx'
import { SlotArea } from './slot-area.tsx'

;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true

const ada: SessionUser = { id: 'u1', email: 'ada@example.com', displayName: 'Ada' }
const mounted: { el: HTMLElement; unmount: Unmount }[] = []

afterEach(() => {
  for (const { el, unmount } of mounted.splice(0)) {
    act(() => unmount())
    el.remove()
  }
})

function Card({ user }: { user: SessionUser | null }) {
  return <p>Card for {user?.displayName ?? 'a visitor'}</p>
}

function AccountPage() {
  return (
    <section>
      <h1>Account</h1>
      <SlotArea slot="account.section" props={{ user: ada }} />
    </section>
  )
}

describe('slots with props and commands (contract 1.1)', () => {
  it("renders a slot's component with the props the host passes", () => {
    const plugin = defineReactPlugin({ name: 'notes', slots: { 'home.card': Card } })
    const el = document.createElement('div')
    document.body.append(el)
    act(() => {
      const unmount = plugin.slots?.['home.card']?.(el, createFakePlatform(), { user: ada })
      if (unmount) mounted.push({ el, unmount })
    })
    expect(el.textContent).toBe('Card for Ada')
  })

  it('passes its commands through to the host', () => {
    const run = () => undefined
    const plugin = defineReactPlugin({
      name: 'notes',
      commands: [{ id: 'new-note', label: 'New note', run }],
    })
    expect(plugin.commands).toEqual([{ id: 'new-note', label: 'New note', run }])
  })

  it("hands the host an element for other plugins' slots, and takes it back on unmount", async () => {
    const calls: Array<{ slot: SlotName; props: unknown; removed: boolean }> = []
    const platform = Object.assign(createFakePlatform(), {
      slots: {
        mount(slot: SlotName, target: HTMLElement, props: unknown) {
          const call = { slot, props, removed: false }
          calls.push(call)
          target.textContent = 'other plugins here'
          return () => {
            call.removed = true
          }
        },
      },
    })
    const plugin = defineReactPlugin({
      name: 'auth',
      routes: async () => ({ default: AccountPage }),
    })
    const el = document.createElement('div')
    document.body.append(el)
    let unmount: Unmount = () => undefined
    act(() => {
      unmount = plugin.routes!.mount(el, platform)
    })
    await settle()
    await vi.waitFor(() => {
      // StrictMode mounts effects twice: every mount but the live one was taken back.
      expect(calls.at(-1)).toEqual({
        slot: 'account.section',
        props: { user: ada },
        removed: false,
      })
      expect(calls.slice(0, -1).every((call) => call.removed)).toBe(true)
      expect(el.querySelector('[data-tessera-slot-area="account.section"]')?.textContent).toBe(
        'other plugins here',
      )
    })
    act(() => unmount())
    expect(calls.every((call) => call.removed)).toBe(true)
  })

  it('stays empty on a host without platform.slots (contract 1.0)', async () => {
    const plugin = defineReactPlugin({
      name: 'auth',
      routes: async () => ({ default: AccountPage }),
    })
    const el = document.createElement('div')
    document.body.append(el)
    act(() => {
      mounted.push({ el, unmount: plugin.routes!.mount(el, createFakePlatform()) })
    })
    await settle()
    await vi.waitFor(() => expect(el.querySelector('h1')?.textContent).toBe('Account'))
    expect(el.querySelector('[data-tessera-slot-area]')?.childElementCount).toBe(0)
  })
})

/** Lets the lazily imported page arrive and render (React's lazy resolves in a later task). */
async function settle(): Promise<void> {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0))
  })
}
