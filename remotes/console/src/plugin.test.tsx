// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { asPlugin, CONTRACT_MAJOR, type Unmount } from '@tessera/contracts/plugin'
import { createFakePlatform } from '@tessera/remote-build/testing'
import plugin from './plugin.tsx'
import { remotesBody } from './testing/fixtures.ts'

const mounted: { el: HTMLElement; unmount: Unmount }[] = []

afterEach(() => {
  for (const { el, unmount } of mounted.splice(0)) {
    unmount()
    el.remove()
  }
})

describe('console plugin', () => {
  it('declares itself as console on the current contract major', () => {
    expect(asPlugin(plugin)).toBe(plugin)
    expect(plugin.name).toBe('console')
    expect(plugin.contract).toBe(CONTRACT_MAJOR)
  })

  it('mounts its page under its own root and unmounts cleanly', async () => {
    const el = document.createElement('div')
    el.dataset.tesseraRemote = 'console'
    document.body.append(el)
    const platform = createFakePlatform({
      remote: { name: 'console', version: '0.1.0' },
      fetch: () => Promise.resolve(Response.json(remotesBody([]))),
    })
    const mount = plugin.routes?.mount
    if (mount === undefined) throw new Error('the plugin has no pages')
    const unmount = mount(el, platform)
    mounted.push({ el, unmount })
    await vi.waitFor(() => expect(el.querySelector('h1')?.textContent).toBe('Remotes'), {
      timeout: 10_000,
    })
    mounted.splice(0)
    unmount()
    expect(el.childElementCount).toBe(0)
    el.remove()
  })
})
