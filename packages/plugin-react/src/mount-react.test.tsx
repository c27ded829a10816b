// @vitest-environment happy-dom
import { act } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createFakePlatform } from '@tessera/remote-build/testing'
import { AppLink } from './app-link.tsx'
import { mountReact } from './mount-react.tsx'
import { useRoute } from './platform.tsx'

function Page() {
  return (
    <main>
      <p>at {useRoute()}</p>
      <AppLink to="/billing/plans">Plans</AppLink>
    </main>
  )
}

function Broken(): never {
  throw new Error('boom')
}

describe('mountReact', () => {
  afterEach(() => {
    document.body.innerHTML = ''
  })

  it('renders into its own root with the platform as context and unmounts cleanly', async () => {
    const el = document.createElement('div')
    document.body.append(el)
    const platform = createFakePlatform()
    let unmount = () => undefined as void
    await act(async () => {
      unmount = mountReact(el, platform, <Page />)
    })
    expect(el.textContent).toContain('at /')
    await act(async () => unmount())
    expect(el.innerHTML).toBe('')
  })

  it('navigates through the platform on a plain click of an app link', async () => {
    const el = document.createElement('div')
    document.body.append(el)
    const platform = createFakePlatform()
    await act(async () => {
      mountReact(el, platform, <Page />)
    })
    await act(async () => el.querySelector('a')!.click())
    expect(platform.navigations).toEqual([{ to: '/billing/plans', replace: false }])
  })

  it('keeps a crash inside the plugin to its own element', async () => {
    const el = document.createElement('div')
    document.body.append(el)
    const platform = createFakePlatform()
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    await act(async () => {
      mountReact(el, platform, <Broken />)
    })
    expect(el.querySelector('[role="alert"]')?.textContent).toContain('could not be shown')
    quiet.mockRestore()
  })
})
