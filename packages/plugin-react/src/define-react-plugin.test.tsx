// @vitest-environment happy-dom
import { act } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { asPlugin, CONTRACT_MAJOR } from '@tessera/contracts/plugin'
import type { MountFn, Unmount } from '@tessera/contracts/plugin'
import { createFakePlatform } from '@tessera/remote-build/testing'
import type { FakePlatform } from '@tessera/remote-build/testing'
import { defineReactPlugin } from './define-react-plugin.tsx'
import { usePlatform, useRoute } from './platform.tsx'
import { useSearchParams } from './use-search.ts'

// Tells React that these tests wrap their updates in act(), as Testing Library's render does.
;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true

const mounted: { el: HTMLElement; unmount: Unmount }[] = []

function mount(mountFn: MountFn | undefined, platform: FakePlatform): HTMLElement {
  if (mountFn === undefined) throw new Error('nothing to mount')
  const el = document.createElement('div')
  document.body.append(el)
  act(() => {
    mounted.push({ el, unmount: mountFn(el, platform) })
  })
  return el
}

afterEach(() => {
  for (const { el, unmount } of mounted.splice(0)) {
    act(() => unmount())
    el.remove()
  }
  window.history.replaceState(null, '', '/')
})

function Pages() {
  return <h1>Page at {useRoute()}</h1>
}

function Badge() {
  const platform = usePlatform()
  const next = useSearchParams().get('next') ?? 'none'
  return (
    <button type="button" onClick={() => platform.navigate('/billing/plans')}>
      next={next}
    </button>
  )
}

describe('defineReactPlugin', () => {
  it('declares a plugin of its name on the current contract major with its slots', () => {
    const plugin = defineReactPlugin({
      name: 'billing',
      routes: () => Promise.resolve({ default: Pages }),
      slots: { 'header.end': Badge },
    })
    expect(asPlugin(plugin)).toBe(plugin)
    expect(plugin.name).toBe('billing')
    expect(plugin.contract).toBe(CONTRACT_MAJOR)
    expect(typeof plugin.routes?.mount).toBe('function')
    expect(Object.keys(plugin.slots ?? {})).toEqual(['header.end'])
  })

  it('leaves out routes and slots it was not given', () => {
    const plugin = defineReactPlugin({ name: 'quiet' })
    expect(asPlugin(plugin)).toBe(plugin)
    expect(plugin.routes).toBeUndefined()
    expect(plugin.slots).toBeUndefined()
  })

  it('says what is loading until the pages module arrives, then shows the page', async () => {
    let arrive: (module: { default: typeof Pages }) => void = () => {}
    const plugin = defineReactPlugin({
      name: 'billing',
      routes: () => new Promise((resolve) => (arrive = resolve)),
      loading: 'Loading billing…',
    })
    const platform = createFakePlatform({ remote: { name: 'billing', version: '1.0.0' } })
    const el = mount(plugin.routes?.mount, platform)
    expect(el.querySelector('[role="status"]')?.textContent).toBe('Loading billing…')

    await act(async () => arrive({ default: Pages }))
    await vi.waitFor(() => expect(el.querySelector('h1')?.textContent).toBe('Page at /'))
    act(() => platform.setRoute('/plans'))
    expect(el.querySelector('h1')?.textContent).toBe('Page at /plans')

    act(() => mounted.pop()?.unmount())
    expect(el.innerHTML).toBe('')
    expect(platform.listenerCount()).toBe(0)
  })

  it('mounts a slot whose navigations reach the host and are announced to query readers', () => {
    window.history.replaceState(null, '', '/billing/plans?next=%2Fassistant')
    const plugin = defineReactPlugin({ name: 'billing', slots: { 'header.end': Badge } })
    const platform = createFakePlatform({ remote: { name: 'billing', version: '1.0.0' } })
    platform.navigate = (to, options) => {
      platform.navigations.push({ to, replace: options?.replace ?? false })
      window.history.replaceState(null, '', to)
    }
    const el = mount(plugin.slots?.['header.end'], platform)
    const button = el.querySelector('button')
    expect(button?.textContent).toBe('next=/assistant')

    act(() => button?.click())
    expect(platform.navigations).toEqual([{ to: '/billing/plans', replace: false }])
    expect(button?.textContent).toBe('next=none')
  })
})
