import { describe, expect, it } from 'vitest'
import { createTestApp } from '../testing/app.ts'
import { BFF_VERSION } from '../platform/version.ts'

describe('GET /api/health', () => {
  it('says ok with the version and how long the BFF has been up', async () => {
    const { app, clock } = createTestApp()
    clock.advance(90_500)
    const response = await app.request('/api/health')
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.json()).toEqual({ status: 'ok', version: BFF_VERSION, uptimeSeconds: 90 })
  })

  it('reports the version from the BFF’s package.json', () => {
    expect(BFF_VERSION).toMatch(/^\d+\.\d+\.\d+/)
  })
})
