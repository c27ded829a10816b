// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { asPlugin, CONTRACT_MAJOR, type MountFn, type Unmount } from '@tessera/contracts/plugin'
import { createFakePlatform, type FakePlatform } from '@tessera/remote-build/testing'
import plugin from './plugin.tsx'

// The first mount imports the page module; on a busy two-core machine that can take seconds.
const waitFor = <T,>(check: () => T) => vi.waitFor(check, { timeout: 10_000, interval: 20 })

const mounted: { el: HTMLElement; unmount: Unmount }[] = []

function mount(mountFn: MountFn | undefined, platform: FakePlatform): HTMLElement {
  if (mountFn === undefined) throw new Error('nothing to mount')
  const el = document.createElement('div')
  el.dataset.tesseraRemote = 'billing'
  document.body.append(el)
  mounted.push({ el, unmount: mountFn(el, platform) })
  return el
}

function billingPlatform(route = '/') {
  return createFakePlatform({ remote: { name: 'billing', version: '1.0.0' }, route })
}

afterEach(() => {
  for (const { el, unmount } of mounted.splice(0)) {
    unmount()
    el.remove()
  }
})

describe('billing plugin', () => {
  it('declares itself as billing on the current contract major', () => {
    expect(asPlugin(plugin)).toBe(plugin)
    expect(plugin.name).toBe('billing')
    expect(plugin.contract).toBe(CONTRACT_MAJOR)
    expect(Object.keys(plugin.slots ?? {})).toEqual(['header.end'])
  })

  it('mounts a page that names the remote and version the host reports, then unmounts cleanly', async () => {
    const platform = billingPlatform('/plans')
    const el = mount(plugin.routes?.mount, platform)

    await waitFor(() => expect(el.querySelector('h1')?.textContent).toBe('Plans and billing'))
    const facts = el.querySelector('dl')?.textContent ?? ''
    expect(facts).toContain('billing')
    expect(facts).toContain('1.0.0')
    expect(facts).toContain('/plans')
    expect(el.querySelector('a[aria-current="page"]')?.textContent).toBe('Plans')
    expect(platform.listenerCount()).toBeGreaterThan(0)

    mounted.pop()?.unmount()
    expect(el.innerHTML).toBe('')
    expect(platform.listenerCount()).toBe(0)
  })

  it('follows the sub-route, theme and session the platform reports', async () => {
    const platform = billingPlatform()
    const el = mount(plugin.routes?.mount, platform)
    await waitFor(() => expect(el.querySelector('h1')).not.toBeNull())

    platform.setRoute('/plans')
    platform.setTheme('dark')
    platform.setSession(
      { status: 'signed-in', user: { id: 'u1', email: 'ada@example.com', displayName: 'Ada' } },
      'SIGNED_IN',
    )
    await waitFor(() => {
      expect(el.querySelector('dl')?.textContent).toContain('/plans')
      expect(el.textContent).toContain('Current theme: dark')
      expect(el.textContent).toContain('Signed in as Ada (ada@example.com)')
    })
  })

  it('lists live events newest first in a polite live region', async () => {
    const platform = billingPlatform()
    const el = mount(plugin.routes?.mount, platform)
    await waitFor(() => expect(el.querySelector('[aria-live="polite"]')).not.toBeNull())

    platform.emit({ type: 'plan.changed', data: { plan: 'pro' } })
    platform.emit({ type: 'usage.updated', data: null })
    platform.emit({ id: '1', type: 'plan.changed', data: { plan: 'pro' } })

    await waitFor(() => {
      const items = [...el.querySelectorAll('[aria-live="polite"] li')]
      expect(items.map((item) => item.querySelector('code')?.textContent)).toEqual([
        'usage.updated',
        'plan.changed',
      ])
    })
  })

  it('asks the platform to notify when the button is pressed', async () => {
    const platform = billingPlatform()
    const el = mount(plugin.routes?.mount, platform)
    const button = await waitFor(() => {
      const found = [...el.querySelectorAll('button')].find(
        (candidate) => candidate.textContent === 'Send a test notice',
      )
      if (found === undefined) throw new Error('no notify button yet')
      return found
    })
    button.click()
    expect(platform.notices).toEqual([{ kind: 'success', message: 'Hello from billing 1.0.0.' }])
  })

  it('lists every theme token of the contract with the value applied', async () => {
    // happy-dom does not inherit custom properties, so the token is set on the table itself.
    const style = document.createElement('style')
    style.textContent = 'table { --tessera-color-accent: rgb(10, 20, 30); }'
    document.head.append(style)
    const platform = billingPlatform()
    const el = mount(plugin.routes?.mount, platform)
    await waitFor(() => {
      const rows = [...el.querySelectorAll('tbody tr')]
      expect(rows.map((row) => row.querySelector('th')?.textContent)).toEqual([
        ...platform.theme.tokens,
      ])
      const accent = rows.find((row) => row.textContent?.startsWith('--tessera-color-accent'))
      expect(accent?.textContent).toContain('rgb(10, 20, 30)')
    })
    style.remove()
  })

  it('fills the header slot with a Free plan badge that links to billing', async () => {
    const platform = billingPlatform()
    const el = mount(plugin.slots?.['header.end'], platform)
    const badge = await waitFor(() => {
      const link = el.querySelector('a')
      if (link === null) throw new Error('no badge yet')
      return link
    })
    expect(badge.textContent).toBe('Free')
    expect(badge.getAttribute('aria-label')).toContain('Free')
    badge.click()
    expect(platform.navigations).toEqual([{ to: '/billing', replace: false }])

    mounted.pop()?.unmount()
    expect(el.innerHTML).toBe('')
  })
})
