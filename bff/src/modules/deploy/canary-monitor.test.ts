import { randomUUID } from 'node:crypto'
import { remoteDeployStateSchema } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { createTestDatabase } from '@tessera/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../platform/logger.ts'
import { createSharedCounters } from '../../platform/shared-counters.ts'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import { createManualClock, csrfHeaders, waitFor } from '../../testing/app.ts'
import { createCanaryMonitor, createSharedCanaryMonitor } from './canary-monitor.ts'
import type { CanaryMonitor } from './canary-monitor.ts'
import { startDeployTestApp } from '../../testing/deploy.ts'
import type { DeployTestApp } from '../../testing/deploy.ts'

describe.each(['in memory', 'in the database'])('the canary monitor %s', (kind) => {
  let db: Sql | undefined
  beforeAll(async () => {
    if (kind === 'in the database') db = await createTestDatabase()
  }, databaseSetupTimeout)
  afterAll(async () => {
    await db?.close()
  })

  const setup = () => {
    const clock = createManualClock()
    const options = { clock, windowMs: 60_000, threshold: 0.5, minClients: 4 }
    if (db === undefined) return { clock, monitor: createCanaryMonitor(options) }
    const counters = createSharedCounters({
      sql: db,
      clock,
      logger: createLogger({ level: 'silent' }),
      timeoutMs: 10_000,
      namespace: randomUUID(),
    })
    return { clock, monitor: createSharedCanaryMonitor({ ...options, counters }) }
  }

  it('rates errors per distinct client served the canary, once the sample is large enough', async () => {
    const { monitor } = setup()
    for (const client of ['a', 'b', 'c']) await monitor.served('billing', '1.1.0', client)
    // Three clients served: below the minimum sample, even at 100 % errors.
    expect(await monitor.failed('billing', '1.1.0', 'a')).toMatchObject({
      over: false,
      errorRate: 1 / 3,
    })
    expect(await monitor.failed('billing', '1.1.0', 'b')).toMatchObject({ over: false })
    await monitor.served('billing', '1.1.0', 'd')
    // The same client reporting again is still one client.
    expect(await monitor.failed('billing', '1.1.0', 'b')).toMatchObject({
      errorClients: 2,
      servedClients: 4,
      errorRate: 0.5,
      over: true,
    })
  })

  it('does not count clients that were never served the version, nor other versions', async () => {
    const { monitor } = setup()
    for (const client of ['a', 'b', 'c', 'd']) await monitor.served('billing', '1.1.0', client)
    for (const stranger of ['x', 'y', 'z']) await monitor.failed('billing', '1.1.0', stranger)
    await monitor.served('billing', '1.2.0', 'a')
    await monitor.failed('billing', '1.2.0', 'a')
    expect(await monitor.failed('billing', '1.1.0', 'w')).toMatchObject({
      errorClients: 0,
      over: false,
    })
  })

  it('forgets what happened before the window', async () => {
    const { monitor, clock } = setup()
    for (const client of ['a', 'b', 'c', 'd']) await monitor.served('billing', '1.1.0', client)
    await monitor.failed('billing', '1.1.0', 'a')
    clock.advance(61_000)
    for (const client of ['e', 'f', 'g', 'h']) await monitor.served('billing', '1.1.0', client)
    expect(await monitor.failed('billing', '1.1.0', 'e')).toMatchObject({
      errorClients: 1,
      servedClients: 4,
      over: false,
    })
  })
})

describe('the canary monitors of two replicas over one database', () => {
  let db: Sql
  beforeAll(async () => {
    db = await createTestDatabase()
  }, databaseSetupTimeout)
  afterAll(() => db.close())

  it('add up the clients each served and each heard from', async () => {
    const clock = createManualClock()
    const [a, b] = [0, 1].map(() =>
      createSharedCanaryMonitor({
        clock,
        windowMs: 60_000,
        threshold: 0.5,
        minClients: 4,
        counters: createSharedCounters({
          sql: db,
          clock,
          logger: createLogger({ level: 'silent' }),
          timeoutMs: 10_000,
        }),
      }),
    ) as [CanaryMonitor, CanaryMonitor]
    await a.served('billing', '1.1.0', 'p')
    await a.served('billing', '1.1.0', 'q')
    await b.served('billing', '1.1.0', 'r')
    await b.served('billing', '1.1.0', 's')
    // Served by one replica, reported to the other: still one of the canary's clients.
    expect(await b.failed('billing', '1.1.0', 'p')).toMatchObject({
      servedClients: 4,
      errorClients: 1,
      over: false,
    })
    expect(await a.failed('billing', '1.1.0', 'r')).toMatchObject({
      servedClients: 4,
      errorClients: 2,
      errorRate: 0.5,
      over: true,
    })
  })
})

describe('automatic canary rollback', () => {
  let t: DeployTestApp
  let token: string

  beforeAll(async () => {
    t = await startDeployTestApp({
      env: { CANARY_MIN_CLIENTS: '4', CANARY_ERROR_RATE_THRESHOLD: '0.5' },
    })
    token = await t.token('billing')
    await t.release(token, 'billing', '1.0.0')
    await t.publish(token, 'billing', '1.1.0', { flavour: 'b' })
  }, databaseSetupTimeout)

  afterAll(async () => {
    await t.close()
  })

  const report = (cookie: string | undefined, version: string) =>
    t.app.request('/api/telemetry/remote-errors', {
      method: 'POST',
      headers: { ...csrfHeaders, ...(cookie === undefined ? {} : { cookie }) },
      body: JSON.stringify({ remote: 'billing', version, stage: 'mount', message: 'boom' }),
    })

  it('stops a canary whose clients report errors past the threshold, logs it and tells pages', async () => {
    const started = await t.deploy(token, 'POST', '/remotes/billing/canary', {
      version: '1.1.0',
      percentage: 50,
    })
    expect(started.status).toBe(200)
    // Visitors until four were served the canary (about every other one is).
    const canaryVisitors: string[] = []
    for (let visitor = 0; visitor < 400 && canaryVisitors.length < 4; visitor++) {
      const visit = await t.snapshot()
      const billing = visit.body.remotes.find((remote) => remote.name === 'billing')
      if (billing?.channel === 'canary' && visit.cookie !== undefined) {
        canaryVisitors.push(visit.cookie)
      }
    }
    expect(canaryVisitors).toHaveLength(4)
    const [first, second] = canaryVisitors
    // Reports for stable, and from someone never served the canary, count for nothing.
    expect((await report(first, '1.0.0')).status).toBe(202)
    expect((await report(undefined, '1.1.0')).status).toBe(202)
    expect((await report(first, '1.1.0')).status).toBe(202)
    let state = remoteDeployStateSchema.parse(
      await (await t.deploy(token, 'GET', '/remotes/billing')).json(),
    )
    expect(state.canary.version).toBe('1.1.0')

    const seen = t.events.length
    // The second of four clients: 50 %, the threshold.
    expect((await report(second, '1.1.0')).status).toBe(202)
    state = remoteDeployStateSchema.parse(
      await (await t.deploy(token, 'GET', '/remotes/billing')).json(),
    )
    expect(state.canary).toMatchObject({ version: null, percentage: null })
    expect(state.events[0]).toMatchObject({
      kind: 'canary_auto_rolled_back',
      version: '1.1.0',
      actor: 'canary monitor',
      details: { errorRate: 0.5, errorClients: 2, servedClients: 4, threshold: 0.5 },
    })
    expect(state.versions.find((version) => version.version === '1.1.0')?.withdrawnReason).toMatch(
      /canary stopped automatically: 2 of 4 clients reported errors/,
    )
    const changed = await waitFor(
      () => t.events.slice(seen).find((event) => event.type === 'registry.changed'),
      { what: 'registry.changed' },
    )
    expect(changed.data).toMatchObject({
      remotes: [{ name: 'billing', version: '1.0.0', canary: null }],
    })
    // Everyone is back on stable, the canary's own visitors too.
    for (const cookie of canaryVisitors) {
      const { body } = await t.snapshot(cookie)
      expect(body.remotes.find((remote) => remote.name === 'billing')?.version).toBe('1.0.0')
    }
  })

  it('leaves a canary alone while its error rate stays under the threshold', async () => {
    await t.publish(token, 'billing', '1.2.0', { flavour: 'c' })
    await t.deploy(token, 'POST', '/remotes/billing/canary', { version: '1.2.0', percentage: 100 })
    const visitors = await Promise.all(Array.from({ length: 6 }, () => t.snapshot()))
    expect((await report(visitors[0]?.cookie, '1.2.0')).status).toBe(202)
    expect((await report(visitors[1]?.cookie, '1.2.0')).status).toBe(202)
    const state = remoteDeployStateSchema.parse(
      await (await t.deploy(token, 'GET', '/remotes/billing')).json(),
    )
    expect(state.canary).toMatchObject({ version: '1.2.0', percentage: 100 })
  })
})
