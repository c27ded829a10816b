import { registrySnapshotSchema } from '@tessera/contracts'
import type { Context } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HostAssets } from '../../http/host-page.ts'
import { databaseSetupTimeout, startIdentityTestApp } from '../../testing/identity.ts'
import type { IdentityTestApp } from '../../testing/identity.ts'
import { createTestApp, remoteEntry } from '../../testing/app.ts'
import { canaryBucket } from './registry-viewer.ts'

const stable = remoteEntry({ name: 'billing', version: '1.0.0' })
const canary = remoteEntry({
  name: 'billing',
  version: '1.1.0',
  entryUrl: 'https://canary.example.com/billing/1.1.0/assets/remoteEntry.js',
})
const withCanary = (percentage: number) => ({
  remotes: [remoteEntry({ name: 'auth' }), { ...stable, canary: { percentage, remote: canary } }],
})

type App = ReturnType<typeof createTestApp>['app']

async function visit(app: App, cookie?: string) {
  const response = await app.request('/api/remotes', {
    headers: cookie === undefined ? {} : { cookie },
  })
  const snapshot = registrySnapshotSchema.parse(await response.json())
  const setCookie = response.headers.getSetCookie()
  const billing = snapshot.remotes.find((remote) => remote.name === 'billing')
  return { snapshot, setCookie, billing, cookie: setCookie[0]?.split(';')[0] ?? cookie }
}

describe('canaryBucket', () => {
  it('puts a viewer in the same bucket (0–99) every time, and per remote', async () => {
    const buckets = await Promise.all(
      Array.from({ length: 200 }, (_, index) => canaryBucket(`visitor:${index}`, 'billing')),
    )
    expect(buckets.every((bucket) => Number.isInteger(bucket) && bucket >= 0 && bucket < 100)).toBe(
      true,
    )
    expect(await canaryBucket('visitor:7', 'billing')).toBe(buckets[7])
    const other = await Promise.all(
      Array.from({ length: 200 }, (_, index) => canaryBucket(`visitor:${index}`, 'auth')),
    )
    // Another remote's canary reaches other people: the buckets are not the same list.
    expect(other).not.toEqual(buckets)
  })
})

describe('the viewer’s snapshot', () => {
  it('sets no cookie and looks up no session while no canary runs', async () => {
    // createTestApp has no session store: any lookup would throw.
    const { app } = createTestApp({ registry: { remotes: [stable] } })
    const response = await app.request('/api/remotes', {
      headers: { cookie: 'tessera_session=abc' },
    })
    expect(response.status).toBe(200)
    expect(response.headers.getSetCookie()).toEqual([])
  })

  it('gives a visitor a cookie and the same version on every reload', async () => {
    const { app } = createTestApp({ registry: withCanary(50) })
    const first = await visit(app)
    expect(first.setCookie[0]).toMatch(
      /^tessera_visitor=[0-9a-f-]{36}; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Lax$/,
    )
    for (let reload = 0; reload < 5; reload++) {
      const again = await visit(app, first.cookie)
      expect(again.setCookie).toEqual([])
      expect(again.billing?.version).toBe(first.billing?.version)
    }
  })

  it('serves the canary to about its share of visitors, with stable as their fallback', async () => {
    const { app } = createTestApp({ registry: withCanary(50) })
    let inCanary = 0
    const visitors = 1000
    for (let index = 0; index < visitors; index++) {
      const { billing, snapshot } = await visit(app)
      if (billing?.channel === 'canary') {
        inCanary += 1
        expect(billing).toMatchObject({
          version: '1.1.0',
          previous: { version: '1.0.0', entryUrl: stable.entryUrl },
        })
      } else {
        expect(billing).toMatchObject({ version: '1.0.0', channel: 'stable' })
      }
      // Only the remote with a canary varies.
      expect(snapshot.remotes.find((remote) => remote.name === 'auth')?.channel).toBe('stable')
    }
    // Binomial(1000, 0.5): 4.4 standard deviations either side.
    expect(inCanary).toBeGreaterThan(430)
    expect(inCanary).toBeLessThan(570)
  })

  it('keeps everyone who had the canary on it when its share grows', async () => {
    const context = createTestApp({ registry: withCanary(20) })
    const visitors = await Promise.all(Array.from({ length: 200 }, () => visit(context.app)))
    context.setRegistry(withCanary(50))
    for (const visitor of visitors) {
      const now = await visit(context.app, visitor.cookie)
      if (visitor.billing?.channel === 'canary') expect(now.billing?.channel).toBe('canary')
    }
  })

  it('replaces a visitor cookie that is not one of ours', async () => {
    const { app } = createTestApp({ registry: withCanary(50) })
    const forged = await visit(app, 'tessera_visitor=../../etc')
    expect(forged.setCookie[0]).toMatch(/^tessera_visitor=[0-9a-f-]{36};/)
  })

  it('lists the origins of stable and of the canary in the host page’s CSP, whoever asks', async () => {
    const assets: HostAssets = {
      indexHtml: async () => '<!doctype html><title>host</title>',
      serve: async (_c: Context) => null,
    }
    const { app } = createTestApp({ registry: withCanary(50), deps: { assets } })
    const page = await app.request('/billing', { headers: { accept: 'text/html' } })
    expect(page.status).toBe(200)
    // The page allows whatever GET /api/remotes answers next, canary or not.
    const csp = page.headers.get('content-security-policy') ?? ''
    expect(csp).toContain('https://canary.example.com')
    expect(csp).toContain('http://localhost:8788')
    expect(page.headers.getSetCookie()).toEqual([])
  })
})

describe('a signed-in viewer', () => {
  let t: IdentityTestApp
  beforeAll(async () => {
    t = await startIdentityTestApp({ registry: withCanary(50) })
  }, databaseSetupTimeout)
  afterAll(() => t.finish())

  it('is bucketed by account, the same on every device', async () => {
    const email = `canary-${crypto.randomUUID()}@example.com`
    const laptop = await t.signUp(email)
    const phone = await t.signIn(email)
    const me = (await (await laptop.get('/api/me')).json()) as { user: { id: string } }
    const expected = (await canaryBucket(`user:${me.user.id}`, 'billing')) < 50 ? '1.1.0' : '1.0.0'
    for (const device of [laptop, phone]) {
      const response = await device.get('/api/remotes')
      const snapshot = registrySnapshotSchema.parse(await response.json())
      expect(snapshot.remotes.find((remote) => remote.name === 'billing')?.version).toBe(expected)
      // Signed in, no visitor cookie is needed.
      expect(response.headers.getSetCookie()).toEqual([])
    }
  })
})
