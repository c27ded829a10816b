import {
  CONTRACT_MAJOR,
  auditResponseSchema,
  channelChangeSchema,
  consoleConflictDetailsSchema,
  consoleHealthSchema,
  consoleRemoteDetailSchema,
  consoleRemotesResponseSchema,
  consoleTokensResponseSchema,
  errorBodySchema,
  grantedOperatorSchema,
  issuedTokenSchema,
  operatorsResponseSchema,
  revokedOperatorSchema,
  revokedTokenResponseSchema,
  registrySnapshotSchema,
  signedInSchema,
  type RemoteDescriptor,
} from '@tessera/contracts'
import { uniqueEmail } from '@tessera/emulators/supabase/test-support'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { remoteEntry } from '../../testing/app.ts'
import { databaseSetupTimeout, jsonOf, startIdentityTestApp } from '../../testing/identity.ts'
import type { IdentityTestApp, TestBrowser } from '../../testing/identity.ts'
import { cliActor } from '../deploy/actor.ts'
import { createDeployTokens } from '../deploy/tokens.ts'
import { CACHE_INVALIDATE_TYPE } from '../events/cache-invalidation.ts'
import { createLiveEvent } from '../events/event-hub.ts'
import { LAST_OPERATOR, createOperatorRoles } from './operator-roles.ts'

let t: IdentityTestApp
let operator: TestBrowser
let visitor: TestBrowser
let adaEmail: string
const background = new AbortController()

/** A descriptor the host can run (its files are never fetched: it is written to the table). */
function descriptorOf(name: string, version: string): RemoteDescriptor {
  return {
    name,
    version,
    contract: CONTRACT_MAJOR,
    basePath: `/${name}`,
    nav: { label: name, order: 5 },
    slots: [],
    entry: 'assets/remoteEntry.js',
    shared: { react: '19.1.0', 'react-dom': '19.1.0' },
    files: [{ path: 'assets/remoteEntry.js', sha256: 'a'.repeat(64), bytes: 1234 }],
    builtAt: '2026-01-01T00:00:00.000Z',
  }
}

async function registerRow(name: string, version: string) {
  await t.db.query(
    `insert into public.remote_versions
       (remote_name, version, descriptor, content_sha256, base_url, published_by, checks)
     values ($1, $2, $3::jsonb, $4, $5, 'pay CI', $6::jsonb)`,
    [
      name,
      version,
      JSON.stringify(descriptorOf(name, version)),
      version
        .replaceAll('.', '')
        .padEnd(64, '0')
        .slice(0, 64)
        .replace(/[^0-9a-f]/g, '0'),
      `http://localhost:8788/${name}/${version}`,
      JSON.stringify([{ name: 'contract', passed: true, detail: 'contract 1' }]),
    ],
  )
}

async function errorOf(response: Response) {
  return errorBodySchema.parse(await response.json()).error
}

beforeAll(async () => {
  t = await startIdentityTestApp({
    registry: {
      remotes: [
        remoteEntry(),
        { ...remoteEntry({ name: 'console', basePath: '/console' }), audience: 'operators' },
      ],
    },
    deps: { background: { signal: background.signal, sweepEveryMs: 60_000 } },
  })
  adaEmail = uniqueEmail('ada')
  operator = await t.signUp(adaEmail)
  visitor = await t.signUp(uniqueEmail('bob'))
  await createOperatorRoles({ sql: t.db, clock: t.clock }).grant(adaEmail, cliActor('root'))
  await createDeployTokens({ sql: t.db, clock: t.clock }).issue('pay', 'pay CI')
  await registerRow('pay', '1.0.0')
  await registerRow('pay', '1.1.0')
}, databaseSetupTimeout)
afterAll(async () => {
  background.abort()
  await t.finish()
})

describe('the console guard', () => {
  it('refuses a signed-out visitor and a non-operator with 403 and a sentence, on every route', async () => {
    const signedOut = t.browser()
    for (const path of [
      '/api/console/remotes',
      '/api/console/remotes/pay',
      '/api/console/audit',
      '/api/console/tokens',
      '/api/console/health',
      '/api/console/operators',
    ]) {
      for (const browser of [signedOut, visitor]) {
        const response = await browser.get(path)
        expect(response.status, path).toBe(403)
        const error = await errorOf(response)
        expect(error.code).toBe('forbidden')
        expect(error.message).toMatch(/for operators only/)
      }
    }
    const action = await visitor.send('POST', '/api/console/remotes/pay/promote', {
      version: '1.0.0',
    })
    expect(action.status).toBe(403)
  })

  it('refuses a console action without the CSRF header, as every cookie route', async () => {
    const response = await operator.request('/api/console/remotes/pay/promote', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ version: '1.0.0' }),
    })
    expect(response.status).toBe(403)
    expect((await errorOf(response)).code).toBe('csrf_failed')
  })

  it('tells /api/me who holds the operator role', async () => {
    const ada = signedInSchema.parse(await jsonOf(await operator.get('/api/me')))
    const bob = signedInSchema.parse(await jsonOf(await visitor.get('/api/me')))
    expect(ada.roles).toEqual(['operator'])
    expect(bob.roles).toEqual([])
  })

  it('leaves a remote for operators out of a non-operator’s snapshot and lists it as restricted', async () => {
    const bob = registrySnapshotSchema.parse(await jsonOf(await visitor.get('/api/remotes')))
    expect(bob.remotes.map((remote) => remote.name)).toEqual(['billing'])
    expect(bob.restricted).toEqual([{ name: 'console', basePath: '/console' }])
    const ada = registrySnapshotSchema.parse(await jsonOf(await operator.get('/api/remotes')))
    expect(ada.remotes.map((remote) => remote.name)).toEqual(['billing', 'console'])
    expect(ada.restricted).toBeUndefined()
  })
})

describe('the console for an operator', () => {
  it('lists every remote with its channels and the canary settings', async () => {
    const response = await operator.get('/api/console/remotes')
    expect(response.status).toBe(200)
    const body = consoleRemotesResponseSchema.parse(await response.json())
    const pay = body.remotes.find((remote) => remote.name === 'pay')
    expect(pay).toMatchObject({
      stable: { version: null, revision: 0 },
      lastPublished: { by: 'pay CI' },
      traffic: [],
    })
    expect(body.canary.windowSeconds).toBeGreaterThan(0)
  })

  it('shows a remote’s versions with their descriptors and checks; a stranger name is 404, a bad one 422', async () => {
    const body = consoleRemoteDetailSchema.parse(
      await jsonOf(await operator.get('/api/console/remotes/pay')),
    )
    expect(body.versions.map((version) => version.version).sort()).toEqual(['1.0.0', '1.1.0'])
    expect(body.versions[0]).toMatchObject({
      bytes: 1234,
      registeredBy: 'pay CI',
      checks: [{ name: 'contract', passed: true }],
    })
    expect((await operator.get('/api/console/remotes/nothing-here')).status).toBe(404)
    expect((await operator.get('/api/console/remotes/Not_A_Name')).status).toBe(422)
  })

  it('promotes, starts and stops a canary and rolls back as the operator, each in the audit log', async () => {
    const promote = async (version: string, expectedRevision?: number) =>
      operator.send('POST', '/api/console/remotes/pay/promote', {
        version,
        ...(expectedRevision === undefined ? {} : { expectedRevision }),
      })
    const first = channelChangeSchema.parse(await jsonOf(await promote('1.0.0', 0)))
    expect(first.after).toMatchObject({ version: '1.0.0', revision: 1 })
    const canary = await operator.send('POST', '/api/console/remotes/pay/canary', {
      version: '1.1.0',
      percentage: 20,
      expectedRevision: 0,
    })
    expect(channelChangeSchema.parse(await canary.json()).after.percentage).toBe(20)
    const stop = await operator.send('POST', '/api/console/remotes/pay/canary/stop', {})
    expect(stop.status).toBe(200)
    expect((await promote('1.1.0')).status).toBe(200)
    const rollback = await operator.send('POST', '/api/console/remotes/pay/rollback', {})
    expect(channelChangeSchema.parse(await rollback.json()).after.version).toBe('1.0.0')

    const audit = auditResponseSchema.parse(
      await jsonOf(await operator.get('/api/console/audit?remote=pay&source=operator')),
    )
    expect(audit.entries.map((entry) => entry.kind)).toEqual([
      'rolled_back',
      'promoted',
      'canary_stopped',
      'canary_started',
      'promoted',
    ])
    expect(audit.entries.every((entry) => entry.actor === adaEmail)).toBe(true)
    expect(audit.entries[0]).toMatchObject({ before: '1.1.0', after: '1.0.0' })
    expect(audit.entries[3]).toMatchObject({ before: 'no canary', after: '1.1.0 at 20 %' })
  })

  it('refuses a stale revision with who changed the channel and when, and applies nothing', async () => {
    const before = consoleRemoteDetailSchema.parse(
      await jsonOf(await operator.get('/api/console/remotes/pay')),
    )
    const stale = before.remote.stable.revision - 1
    const response = await operator.send('POST', '/api/console/remotes/pay/promote', {
      version: '1.1.0',
      expectedRevision: stale,
    })
    expect(response.status).toBe(409)
    const error = await errorOf(response)
    expect(error.code).toBe('conflict')
    expect(consoleConflictDetailsSchema.parse(error.details)).toMatchObject({
      remote: 'pay',
      channel: 'stable',
      expectedRevision: stale,
      revision: before.remote.stable.revision,
      changedBy: adaEmail,
    })
    expect(error.message).toMatch(
      new RegExp(`^Changed by ${adaEmail} at .+ UTC; reload to see it\\.`),
    )
    const after = consoleRemoteDetailSchema.parse(
      await jsonOf(await operator.get('/api/console/remotes/pay')),
    )
    expect(after.remote.stable).toEqual(before.remote.stable)
  })

  it('counts error reports per minute for the version a channel serves', async () => {
    const report = await visitor.send('POST', '/api/telemetry/remote-errors', {
      remote: 'pay',
      version: '1.0.0',
      stage: 'mount',
      message: 'boom',
    })
    expect(report.status).toBe(202)
    // The count is written beside the answer, not before it (a slow database must not hold the
    // report), so with a pool of connections it may land just after the 202 (a clean-clone run
    // on a PostgreSQL server read it first once).
    const body = await vi.waitFor(
      async () => {
        const read = consoleRemotesResponseSchema.parse(
          await jsonOf(await operator.get('/api/console/remotes')),
        )
        const pay = read.remotes.find((remote) => remote.name === 'pay')?.traffic[0]
        expect(pay?.errorsPerMinute.some((reports) => reports > 0)).toBe(true)
        return read
      },
      { timeout: 5000, interval: 20 },
    )
    const traffic = body.remotes.find((remote) => remote.name === 'pay')?.traffic[0]
    expect(traffic?.version).toBe('1.0.0')
    const perMinute = traffic?.errorsPerMinute ?? []
    expect(perMinute).toHaveLength(Math.ceil(body.canary.windowSeconds / 60))
    // The report is in the newest minute, or in the one before it when the clock's minute turned
    // between the report and the read (a clean-clone run once landed on that boundary).
    expect(perMinute.slice(0, -2).every((reports) => reports === 0)).toBe(true)
    expect(perMinute.slice(-2)).toContainEqual(1)
    expect(perMinute.reduce((sum, reports) => sum + reports, 0)).toBe(1)
  })

  it('sums the load timings browsers report per version: stage means and the wait percentiles', async () => {
    const load = {
      remote: 'pay',
      version: '1.0.0',
      target: 'route',
      entryMs: 100,
      exposeMs: 200,
      mountMs: 50,
      readyMs: 600,
      preloaded: true,
    }
    // Two pages: one report with two remotes (one unknown to the console), one with a slow load.
    for (const loads of [
      [load, { ...load, remote: 'elsewhere' }],
      [{ ...load, entryMs: 300, exposeMs: 400, mountMs: 150, readyMs: 20_000, preloaded: false }],
    ]) {
      const report = await visitor.send('POST', '/api/telemetry/remote-loads', { loads })
      expect(report.status).toBe(202)
    }
    const body = consoleRemotesResponseSchema.parse(
      await jsonOf(await operator.get('/api/console/remotes')),
    )
    const traffic = body.remotes.find((remote) => remote.name === 'pay')?.traffic[0]
    expect(traffic?.loads).toEqual({
      count: 2,
      preloadedShare: 0.5,
      entryMs: 200,
      exposeMs: 300,
      mountMs: 100,
      readyP50Ms: 750,
      // Above the largest bucket: the console says "over 12 s".
      readyP95Ms: null,
    })
  })

  it('issues a token shown once, lists it without the token, and revokes it, all audited', async () => {
    const issued = await operator.send('POST', '/api/console/tokens', {
      remote: 'pay',
      label: 'pay "nightly", CI',
    })
    expect(issued.status).toBe(201)
    const { token, info } = issuedTokenSchema.parse(await issued.json())
    expect(token).toMatch(/^tdt_pay_/)
    const listed = await operator.get('/api/console/tokens')
    const text = await listed.clone().text()
    expect(text).not.toContain(token)
    const { tokens } = consoleTokensResponseSchema.parse(await listed.json())
    expect(tokens.find((each) => each.id === info.id)?.revokedAt).toBeNull()

    const revoked = await operator.send('POST', `/api/console/tokens/${info.id}/revoke`)
    expect(revoked.status).toBe(200)
    expect(revokedTokenResponseSchema.parse(await revoked.json()).token?.revokedAt).not.toBeNull()
    const again = await operator.send('POST', `/api/console/tokens/${info.id}/revoke`)
    expect(again.status).toBe(404)
    expect((await operator.send('POST', '/api/console/tokens/not-a-uuid/revoke')).status).toBe(422)
    expect(
      (await operator.send('POST', '/api/console/tokens', { remote: 'pay', label: '' })).status,
    ).toBe(422)

    const audit = auditResponseSchema.parse(
      await jsonOf(await operator.get('/api/console/audit?remote=pay&limit=2')),
    )
    expect(audit.entries.map((entry) => [entry.kind, entry.source, entry.actor])).toEqual([
      ['token_revoked', 'operator', adaEmail],
      ['token_issued', 'operator', adaEmail],
    ])
    expect(audit.nextBefore).toBe(audit.entries[1]?.id)
  })

  it('exports the audit log as a CSV file with a header row and quoted fields', async () => {
    const response = await operator.get('/api/console/audit?format=csv&kind=token_issued')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/)
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="tessera-audit-\d{4}-\d\d-\d\d\.csv"$/,
    )
    const lines = (await response.text()).split('\r\n')
    expect(lines[0]).toBe('id,at,kind,remote,actor,source,before,after,details')
    // The label's quotes are doubled and the field quoted, comma and all.
    expect(lines[1]).toContain('"token ""pay ""nightly"", CI"""')
  })

  it('refuses audit filters it does not know, with 422', async () => {
    for (const query of [
      'limit=0',
      'limit=9999',
      'kind=deleted',
      'source=ftp',
      'format=xml',
      'x=1',
    ]) {
      const response = await operator.get(`/api/console/audit?${query}`)
      expect(response.status, query).toBe(422)
    }
  })

  it('shows this replica up and each dependency with a latency or a sentence', async () => {
    const health = consoleHealthSchema.parse(
      await jsonOf(await operator.get('/api/console/health')),
    )
    expect(health.replicas.filter((replica) => replica.self && replica.up)).toHaveLength(1)
    expect(health.checks.map((check) => check.name)).toEqual([
      'database',
      'supabase',
      'stripe',
      'model',
    ])
    const database = health.checks[0]
    expect(database).toMatchObject({ ok: true, problem: null })
    for (const check of health.checks) {
      expect(check.ok ? check.latencyMs : check.problem).not.toBeNull()
    }
  })

  it('lists the operators', async () => {
    const body = operatorsResponseSchema.parse(
      await jsonOf(await operator.get('/api/console/operators')),
    )
    expect(body.operators).toEqual([
      expect.objectContaining({ email: adaEmail, grantedBy: 'cli:root' }),
    ])
  })

  it('refuses an operator whose role is revoked from the next request on', async () => {
    const roles = createOperatorRoles({ sql: t.db, clock: t.clock })
    const other = uniqueEmail('cy')
    const cy = await t.signUp(other)
    await roles.grant(other, cliActor('root'))
    expect((await cy.get('/api/console/remotes')).status).toBe(200)
    // Another process's revoke: this app learns it when its brief cache expires (or at once
    // through the outbox's invalidation, on a real stack).
    await roles.revoke(other, cliActor('root'))
    t.clock.advance(6_000)
    expect((await cy.get('/api/console/remotes')).status).toBe(403)
  })

  it('drops a cached role at once when the invalidation arrives, as every replica does', async () => {
    // What the outbox delivers to each replica's hub (decisions/018), published here directly.
    const roles = createOperatorRoles({
      sql: t.db,
      clock: t.clock,
      publish: async (invalidation) => {
        t.hub.publish({
          topic: 'internal',
          event: createLiveEvent(CACHE_INVALIDATE_TYPE, invalidation, t.clock),
        })
      },
    })
    const other = uniqueEmail('dee')
    const dee = await t.signUp(other)
    await roles.grant(other, cliActor('root'))
    expect((await dee.get('/api/console/remotes')).status).toBe(200)
    await roles.revoke(other, cliActor('root'))
    expect((await dee.get('/api/console/remotes')).status).toBe(403)
  })
})

describe('granting and revoking the role in the console, as the CLI does', () => {
  /** A user's id, as /api/me tells them. */
  const idOf = async (browser: TestBrowser) =>
    signedInSchema.parse(await jsonOf(await browser.get('/api/me'))).user.id
  /** The `roles` invalidations published for a user (on the bus, as the CLI's through the outbox). */
  const invalidationsFor = (userId: string) =>
    t.published.filter(
      (message) =>
        message.topic === 'internal' &&
        message.event.type === CACHE_INVALIDATE_TYPE &&
        (message.event.data as { cache?: string; userId?: string }).cache === 'roles' &&
        (message.event.data as { userId?: string }).userId === userId,
    ).length
  const roleEvents = async () =>
    auditResponseSchema
      .parse(await jsonOf(await operator.get('/api/console/audit?source=operator&limit=500')))
      .entries.filter((entry) => entry.kind.startsWith('operator_'))
  const grant = (email: unknown, as: TestBrowser = operator) =>
    as.send('POST', '/api/console/operators', { email })
  const revoke = (userId: string, as: TestBrowser = operator) =>
    as.send('POST', `/api/console/operators/${userId}/revoke`)

  let adaId: string
  let eveEmail: string
  let eve: TestBrowser
  let eveId: string
  beforeAll(async () => {
    adaId = await idOf(operator)
    eveEmail = uniqueEmail('eve')
    eve = await t.signUp(eveEmail)
    eveId = await idOf(eve)
  }, databaseSetupTimeout)

  it('refuses anyone but an operator, a request without the CSRF header, and bodies it cannot use', async () => {
    expect((await grant(eveEmail, visitor)).status).toBe(403)
    expect((await revoke(adaId, visitor)).status).toBe(403)
    expect(
      (await t.browser().send('POST', '/api/console/operators', { email: eveEmail })).status,
    ).toBe(403)
    const noCsrf = await operator.request('/api/console/operators', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: eveEmail }),
    })
    expect(noCsrf.status).toBe(403)
    expect((await errorOf(noCsrf)).code).toBe('csrf_failed')
    const revokeNoCsrf = await operator.request(`/api/console/operators/${adaId}/revoke`, {
      method: 'POST',
    })
    expect((await errorOf(revokeNoCsrf)).code).toBe('csrf_failed')
    for (const body of [{}, { email: 'not-an-email' }, { email: eveEmail, role: 'admin' }]) {
      const response = await operator.send('POST', '/api/console/operators', body)
      expect(response.status, JSON.stringify(body)).toBe(422)
      expect((await errorOf(response)).code).toBe('validation_failed')
    }
    expect((await revoke('not-a-uuid')).status).toBe(422)
    expect((await operator.get('/api/console/operators')).status).toBe(200)
    expect(invalidationsFor(eveId)).toBe(0)
  })

  it('says so when no account has the email, and changes nothing', async () => {
    const response = await grant('nobody-here@example.test')
    expect(response.status).toBe(404)
    const error = await errorOf(response)
    expect(error.code).toBe('not_found')
    expect(error.message).toBe(
      'No account has the email nobody-here@example.test. The person must sign up first; then grant the role again.',
    )
  })

  it('grants the role by email, once: again is 200 with the operator and nothing changes', async () => {
    const response = await grant(eveEmail.toUpperCase())
    expect(response.status).toBe(201)
    const granted = grantedOperatorSchema.parse(await response.json())
    expect(granted).toEqual({
      outcome: 'granted',
      operator: {
        userId: eveId,
        email: eveEmail,
        grantedAt: expect.any(String),
        grantedBy: adaEmail,
      },
    })
    expect((await eve.get('/api/console/remotes')).status).toBe(200)

    const again = await grant(eveEmail)
    expect(again.status).toBe(200)
    expect(grantedOperatorSchema.parse(await again.json())).toEqual({
      ...granted,
      outcome: 'already',
    })

    const listed = operatorsResponseSchema.parse(
      await jsonOf(await operator.get('/api/console/operators')),
    )
    expect(listed.operators.map((each) => each.email)).toEqual([adaEmail, eveEmail])
    // Audited once, as the operator; every replica told once, in the grant's transaction.
    const events = await roleEvents()
    expect(events.map((entry) => [entry.kind, entry.source, entry.actor, entry.after])).toEqual([
      ['operator_granted', 'operator', adaEmail, 'operator'],
    ])
    expect(events[0]?.details).toEqual({ userId: eveId, email: eveEmail })
    expect(invalidationsFor(eveId)).toBe(1)
  })

  it('revokes another operator, whose next request is refused with 403', async () => {
    const response = await revoke(eveId)
    expect(response.status).toBe(200)
    expect(revokedOperatorSchema.parse(await response.json()).operator).toMatchObject({
      userId: eveId,
      email: eveEmail,
      grantedBy: adaEmail,
    })
    const refused = await eve.get('/api/console/remotes')
    expect(refused.status).toBe(403)
    expect((await errorOf(refused)).details).toEqual({ reason: 'not_operator' })
    expect(signedInSchema.parse(await jsonOf(await eve.get('/api/me'))).roles).toEqual([])
    expect((await revoke(eveId)).status).toBe(404)
    expect((await revoke('00000000-0000-4000-8000-000000000000')).status).toBe(404)
    const [latest] = await roleEvents()
    expect(latest).toMatchObject({
      kind: 'operator_revoked',
      source: 'operator',
      actor: adaEmail,
      before: `${eveEmail}: operator`,
      after: 'no role',
    })
    expect(invalidationsFor(eveId)).toBe(2)
  })

  it('refuses the only operator revoking themselves with a sentence, and applies nothing', async () => {
    const before = invalidationsFor(adaId)
    const eventsBefore = await roleEvents()
    const response = await revoke(adaId)
    expect(response.status).toBe(409)
    const error = await errorOf(response)
    expect(error.code).toBe('conflict')
    expect(error.message).toBe(LAST_OPERATOR)
    expect(error.details).toEqual({ reason: 'last_operator' })
    expect((await operator.get('/api/console/remotes')).status).toBe(200)
    expect(await roleEvents()).toEqual(eventsBefore)
    expect(invalidationsFor(adaId)).toBe(before)
  })

  it('lets an operator revoke themselves while another remains', async () => {
    expect((await grant(eveEmail)).status).toBe(201)
    const response = await revoke(eveId, eve)
    expect(response.status).toBe(200)
    expect((await eve.get('/api/console/operators')).status).toBe(403)
    expect((await operator.get('/api/console/operators')).status).toBe(200)
    const [latest] = await roleEvents()
    expect(latest).toMatchObject({ kind: 'operator_revoked', actor: eveEmail, source: 'operator' })
  })

  it('refuses an operator whose own role went meanwhile (another replica still thought them one)', async () => {
    const roles = createOperatorRoles({ sql: t.db, clock: t.clock })
    const stale = { source: 'operator' as const, userId: eveId, label: eveEmail }
    await expect(roles.revoke({ userId: adaId }, stale)).rejects.toMatchObject({
      code: 'forbidden',
      details: { reason: 'not_operator' },
    })
    expect((await operator.get('/api/console/remotes')).status).toBe(200)
  })
})
