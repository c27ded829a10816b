// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { asPlugin, CONTRACT_MAJOR, type MountFn, type Unmount } from '@tessera/contracts/plugin'
import type { SessionState } from '@tessera/contracts/platform'
import { createFakePlatform, type FakePlatform } from '@tessera/remote-build/testing'
import plugin from './plugin.tsx'
import { fakeBff, plansBody, signedIn, subscriptionBody } from './testing/render-page.tsx'

// The first mount imports the pages module; on a busy two-core machine that can take seconds.
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

const bff = fakeBff({
  'GET /api/billing/plans': () => Response.json(plansBody('free')),
  'GET /api/billing/subscription': () => Response.json(subscriptionBody('free')),
})

function billingPlatform(route = '/', session: SessionState = signedIn('free')) {
  return createFakePlatform({
    remote: { name: 'billing', version: '1.0.0' },
    route,
    session,
    fetch: bff.fetch,
  })
}

afterEach(() => {
  for (const { el, unmount } of mounted.splice(0)) {
    unmount()
    el.remove()
  }
})

const heading = (el: HTMLElement) => el.querySelector('h1')?.textContent

describe('billing plugin', () => {
  it('declares itself as billing on the current contract major, filling the header slot', () => {
    expect(asPlugin(plugin)).toBe(plugin)
    expect(plugin.name).toBe('billing')
    expect(plugin.contract).toBe(CONTRACT_MAJOR)
    expect(Object.keys(plugin.slots ?? {})).toEqual(['header.end'])
  })

  it('mounts the page the sub-route names, follows route changes, then unmounts cleanly', async () => {
    const platform = billingPlatform('/plans')
    const el = mount(plugin.routes?.mount, platform)
    await waitFor(() => expect(heading(el)).toBe('Plans'))
    await waitFor(() => expect(el.querySelectorAll('.plan-card')).toHaveLength(3))
    expect(el.querySelector('a[aria-current="page"]')?.textContent).toBe('Plans')

    platform.setRoute('/')
    await waitFor(() => expect(heading(el)).toBe('Billing'))
    // After an in-app move, focus is on the new page's heading, as after a page load.
    await waitFor(() => expect(document.activeElement).toBe(el.querySelector('h1')))
    platform.setRoute('/nowhere')
    await waitFor(() => expect(heading(el)).toBe('Page not found'))
    expect(platform.listenerCount()).toBeGreaterThan(0)

    mounted.pop()?.unmount()
    expect(el.innerHTML).toBe('')
    expect(platform.listenerCount()).toBe(0)
  })

  it('fills the header slot with the plan badge for signed-in users only', async () => {
    const platform = billingPlatform('/', { status: 'signed-out', user: null })
    const el = mount(plugin.slots?.['header.end'], platform)
    await waitFor(() => expect(el.querySelector('.billing-header')).not.toBeNull())
    expect(el.querySelector('a')).toBeNull()

    platform.setSession(signedIn('pro'), 'SIGNED_IN')
    const badge = await waitFor(() => {
      const link = el.querySelector('a')
      if (link === null) throw new Error('no badge yet')
      return link
    })
    expect(badge.textContent).toBe('Pro')
    badge.click()
    expect(platform.navigations).toEqual([{ to: '/billing', replace: false }])

    mounted.pop()?.unmount()
    expect(el.innerHTML).toBe('')
    expect(platform.listenerCount()).toBe(0)
  })
})
