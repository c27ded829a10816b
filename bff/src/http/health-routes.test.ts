import type { Sql } from '@tessera/db/sql'
import { describe, expect, it } from 'vitest'
import { createTestApp } from '../testing/app.ts'
import { BFF_VERSION } from '../platform/version.ts'
import { createReadiness } from '../platform/readiness.ts'

/** A database that answers every statement with no rows. */
const answeringDb = {
  kind: 'postgres',
  query: async () => ({ rows: [], rowCount: 0 }),
} as unknown as Sql

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

describe('GET /api/health/ready', () => {
  it('says ready when the database answers and every registered check passes', async () => {
    const readiness = createReadiness()
    readiness.register('listener', async () => undefined)
    const { app } = createTestApp({ deps: { db: answeringDb, readiness } })
    const response = await app.request('/api/health/ready')
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.json()).toMatchObject({
      status: 'ready',
      checks: { database: { ok: true }, listener: { ok: true } },
    })
  })

  it('answers 503 naming the database when it does not answer', async () => {
    // The test app's database is a stand-in whose every use throws.
    const { app } = createTestApp()
    const response = await app.request('/api/health/ready')
    expect(response.status).toBe(503)
    const body = (await response.json()) as { status: string; failed: string[] }
    expect(body).toMatchObject({ status: 'unavailable', failed: ['database'] })
  })

  it('answers 503 naming a check another module registered when it fails', async () => {
    const readiness = createReadiness()
    readiness.register('listener', async () => {
      throw new Error('the listen connection is down')
    })
    const { app } = createTestApp({ deps: { db: answeringDb, readiness } })
    const response = await app.request('/api/health/ready')
    expect(response.status).toBe(503)
    expect(await response.json()).toMatchObject({
      failed: ['listener'],
      checks: { listener: { ok: false, error: 'the listen connection is down' } },
    })
  })

  it('answers 503 draining as soon as the process starts shutting down', async () => {
    const readiness = createReadiness()
    const { app } = createTestApp({ deps: { db: answeringDb, readiness } })
    expect((await app.request('/api/health/ready')).status).toBe(200)
    readiness.drain()
    const response = await app.request('/api/health/ready')
    expect(response.status).toBe(503)
    expect(await response.json()).toMatchObject({ failed: ['draining'] })
  })

  it('answers HEAD with the same status and no body, as a load balancer’s check may send', async () => {
    const readiness = createReadiness()
    const { app } = createTestApp({ deps: { db: answeringDb, readiness } })
    const ready = await app.request('/api/health/ready', { method: 'HEAD' })
    expect(ready.status).toBe(200)
    expect(await ready.text()).toBe('')
    readiness.drain()
    expect((await app.request('/api/health/ready', { method: 'HEAD' })).status).toBe(503)
  })
})
