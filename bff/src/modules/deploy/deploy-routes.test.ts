import { createRequire } from 'node:module'
import {
  HOST_SHARED_MAJORS,
  channelChangeSchema,
  majorOf,
  registerVersionResponseSchema,
  remoteDeployStateSchema,
} from '@tessera/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import { errorOf, startDeployTestApp } from '../../testing/deploy.ts'
import type { DeployTestApp } from '../../testing/deploy.ts'
import { csrfHeaders, waitFor } from '../../testing/app.ts'

let t: DeployTestApp
let billing: string
let auth: string

beforeAll(async () => {
  t = await startDeployTestApp()
  billing = await t.token('billing')
  auth = await t.token('auth')
}, databaseSetupTimeout)

afterAll(async () => {
  await t.close()
})

const state = async (token: string, remote: string) =>
  remoteDeployStateSchema.parse(await (await t.deploy(token, 'GET', `/remotes/${remote}`)).json())

describe('registering a version', () => {
  it('downloads and checks every file, then registers it; the same build again is a no-op', async () => {
    const first = await t.publish(billing, 'billing', '1.0.0')
    expect(first.status, await first.clone().text()).toBe(201)
    expect(registerVersionResponseSchema.parse(await first.json())).toMatchObject({
      remote: 'billing',
      version: '1.0.0',
      outcome: 'registered',
      entryUrl: `${t.cdn.url}/billing/1.0.0/assets/remoteEntry.js`,
    })
    // A rebuild of the same bytes (new build time) is the same version: nothing happens.
    const again = await t.publish(billing, 'billing', '1.0.0')
    expect(again.status).toBe(200)
    expect((await again.json()) as unknown).toMatchObject({ outcome: 'unchanged' })
    const { versions, events } = await state(billing, 'billing')
    expect(versions.map((version) => version.version)).toEqual(['1.0.0'])
    expect(events.map((event) => event.kind)).toEqual(['published'])
  })

  it('refuses a re-used version with other content, with a sentence, and keeps the first', async () => {
    await t.publish(billing, 'billing', '1.0.1')
    const before = (await state(billing, 'billing')).versions.find((v) => v.version === '1.0.1')
    const reused = await t.publish(billing, 'billing', '1.0.1', {
      flavour: 'b',
      folder: 'other/billing/1.0.1',
    })
    expect(reused.status).toBe(409)
    const error = await errorOf(reused)
    expect(error.code).toBe('conflict')
    expect(error.message).toMatch(/billing 1\.0\.1 is already registered with other content/)
    expect(error.message).toMatch(/immutable/)
    const after = (await state(billing, 'billing')).versions.find((v) => v.version === '1.0.1')
    expect(after).toEqual(before)
  })

  it('refuses in the database too: a registered version’s content cannot be updated', async () => {
    await expect(
      t.db.query(
        `update public.remote_versions set content_sha256 = repeat('0', 64) where remote_name = 'billing' and version = '1.0.0'`,
      ),
    ).rejects.toThrow(/immutable/)
  })

  it('records a move of the same bytes to another storage location', async () => {
    await t.build('billing', '1.0.0', { folder: 'mirror/billing/1.0.0' })
    const descriptor = await t.build('billing', '1.0.0')
    const moved = await t.deploy(billing, 'POST', '/remotes/billing/versions', {
      descriptor,
      baseUrl: t.baseUrlOf('billing', '1.0.0', 'mirror/billing/1.0.0'),
    })
    expect(moved.status).toBe(200)
    expect((await moved.json()) as unknown).toMatchObject({
      outcome: 'relocated',
      baseUrl: `${t.cdn.url}/mirror/billing/1.0.0`,
    })
    const back = await t.publish(billing, 'billing', '1.0.0')
    expect((await back.json()) as unknown).toMatchObject({ outcome: 'relocated' })
    const { events } = await state(billing, 'billing')
    expect(events.filter((event) => event.kind === 'relocated')).toHaveLength(2)
  })

  it('refuses a file whose bytes do not match the descriptor, naming the file', async () => {
    const response = await t.publish(billing, 'billing', '1.0.2', {
      tamper: ['assets/plugin-a.js'],
    })
    expect(response.status).toBe(422)
    const error = await errorOf(response)
    expect(error.code).toBe('validation_failed')
    expect(error.message).toMatch(/assets\/plugin-a\.js at .* has sha256 [0-9a-f]{64}/)
    expect(error.details?.issues).toEqual([
      {
        path: 'descriptor.files.1',
        message: expect.stringContaining('not the file that was built'),
      },
    ])
    const { versions } = await state(billing, 'billing')
    expect(versions.map((version) => version.version)).not.toContain('1.0.2')
  })

  it('refuses a build with a file missing from storage', async () => {
    const response = await t.publish(billing, 'billing', '1.0.3', { omit: ['assets/plugin-a.css'] })
    expect(response.status).toBe(422)
    expect((await errorOf(response)).message).toMatch(
      /assets\/plugin-a\.css is not at .*\(404\): upload every file before registering/,
    )
  })

  it('refuses a build for another contract major or another React major, saying which', async () => {
    const contract = await t.publish(billing, 'billing', '2.0.0', { contract: 2 })
    expect(contract.status).toBe(422)
    expect((await errorOf(contract)).message).toMatch(
      /billing 2\.0\.0 is built for platform contract 2, but the host runs contract 1/,
    )
    const react = await t.publish(billing, 'billing', '2.0.1', { react: '18.3.1' })
    expect(react.status).toBe(422)
    const error = await errorOf(react)
    expect(error.message).toMatch(/built against react 18\.3\.1, but the host shares react 19/)
    expect(error.details?.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'descriptor.shared.react' })]),
    )
  })

  it('refuses a build stored outside the allowed origins or its immutable path', async () => {
    const descriptor = await t.build('billing', '1.0.4')
    for (const baseUrl of [
      'https://evil.example/billing/1.0.4',
      `${t.cdn.url}/billing/latest`,
      `${t.cdn.url}/billing/1.0.4?v=2`,
      // Inside another remote's folder: it ends with /billing/1.0.4 all the same.
      `${t.cdn.url}/auth/billing/1.0.4`,
      `${t.cdn.url}/mirror/auth/billing/1.0.4`,
    ]) {
      const response = await t.deploy(billing, 'POST', '/remotes/billing/versions', {
        descriptor,
        baseUrl,
      })
      expect(response.status, baseUrl).toBe(422)
      expect((await errorOf(response)).details?.issues).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: 'baseUrl' })]),
      )
    }
  })

  it('keeps the host’s React major in step with the React the host installs', () => {
    const require = createRequire(new URL('../../../../host/package.json', import.meta.url))
    const installed = (require('react/package.json') as { version: string }).version
    expect(HOST_SHARED_MAJORS.react).toBe(majorOf(installed))
    expect(HOST_SHARED_MAJORS['react-dom']).toBe(
      majorOf((require('react-dom/package.json') as { version: string }).version),
    )
  })
})

describe('deploy tokens', () => {
  it('refuses another remote’s token with a sentence naming both remotes', async () => {
    const response = await t.publish(billing, 'auth', '1.0.0')
    expect(response.status).toBe(403)
    const error = await errorOf(response)
    expect(error.code).toBe('forbidden')
    expect(error.message).toBe(
      'This deploy token is for billing; it cannot deploy auth. Use auth’s own token.',
    )
    const promote = await t.deploy(auth, 'POST', '/remotes/billing/promote', { version: '1.0.0' })
    expect(promote.status).toBe(403)
  })

  it('refuses a request without a token, with an unknown one, or with a revoked one', async () => {
    const missing = await t.deploy(null, 'GET', '/remotes/billing')
    expect(missing.status).toBe(401)
    expect((await errorOf(missing)).message).toMatch(/Authorization: Bearer/)
    const unknown = await t.deploy(`tdt_billing_${'x'.repeat(43)}`, 'GET', '/remotes/billing')
    expect(unknown.status).toBe(401)
    const issued = await t.tokens.issue('billing', 'to revoke')
    expect((await t.deploy(issued.token, 'GET', '/remotes/billing')).status).toBe(200)
    await t.tokens.revoke(issued.id)
    const revoked = await t.deploy(issued.token, 'GET', '/remotes/billing')
    expect(revoked.status).toBe(401)
    expect((await errorOf(revoked)).message).toMatch(/unknown or was revoked/)
  })

  it('stores tokens hashed, never as they are', async () => {
    const { rows } = await t.db.query<{ token_hash: string }>(
      'select token_hash from public.deploy_tokens',
    )
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) {
      expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/)
      expect(row.token_hash).not.toContain(billing)
    }
  })

  it('needs no CSRF header (bearer only) and gives a browser’s cookies no power', async () => {
    const response = await t.app.request('/api/deploy/remotes/billing/promote', {
      method: 'POST',
      headers: { ...csrfHeaders, cookie: 'tessera_session=whatever' },
      body: JSON.stringify({ version: '1.0.0' }),
    })
    expect(response.status).toBe(401)
    expect((await errorOf(response)).code).toBe('unauthenticated')
  })
})

describe('bad input', () => {
  it('answers catalogue errors, never a bare 500', async () => {
    const cases: [string, RequestInit, number, string][] = [
      ['/remotes/Billing!', { method: 'GET' }, 422, 'validation_failed'],
      [
        '/remotes/billing/promote',
        { method: 'POST', body: '{"version":' },
        422,
        'validation_failed',
      ],
      ['/remotes/billing/promote', { method: 'POST', body: '{}' }, 422, 'validation_failed'],
      [
        '/remotes/billing/promote',
        { method: 'POST', body: '{"version":"1.0.0","extra":1}' },
        422,
        'validation_failed',
      ],
      [
        '/remotes/billing/canary',
        { method: 'POST', body: '{"version":"1.0.0","percentage":101}' },
        422,
        'validation_failed',
      ],
      [
        '/remotes/billing/canary',
        { method: 'POST', body: '{"version":"1.0.0","percentage":0}' },
        422,
        'validation_failed',
      ],
      [
        '/remotes/billing/versions',
        { method: 'POST', body: JSON.stringify({ descriptor: { name: 'billing' }, baseUrl: 'x' }) },
        422,
        'validation_failed',
      ],
      [
        '/remotes/billing/promote',
        { method: 'POST', body: '{"version":"9.9.9"}' },
        404,
        'not_found',
      ],
      ['/remotes/billing/nope', { method: 'POST', body: '{}' }, 404, 'not_found'],
      ['/remotes/billing/promote', { method: 'DELETE' }, 405, 'method_not_allowed'],
    ]
    for (const [path, init, status, code] of cases) {
      const response = await t.app.request(`/api/deploy${path}`, {
        ...init,
        headers: { authorization: `Bearer ${billing}`, 'content-type': 'application/json' },
      })
      expect(response.status, `${init.method} ${path} ${String(init.body)}`).toBe(status)
      expect((await errorOf(response)).code).toBe(code)
    }
    const text = await t.app.request('/api/deploy/remotes/billing/promote', {
      method: 'POST',
      headers: { authorization: `Bearer ${billing}`, 'content-type': 'text/plain' },
      body: 'promote please',
    })
    expect(text.status).toBe(415)
  })

  it('refuses a descriptor path that climbs out of the build', async () => {
    const descriptor = await t.build('billing', '1.0.5')
    const response = await t.deploy(billing, 'POST', '/remotes/billing/versions', {
      descriptor: { ...descriptor, files: [{ ...descriptor.files[0], path: '../../secret.js' }] },
      baseUrl: t.baseUrlOf('billing', '1.0.5'),
    })
    expect(response.status).toBe(422)
  })
})

describe('channels', () => {
  it('promotes, names the previous good version, and rolls back to it', async () => {
    const ai = await t.token('ai')
    await t.release(ai, 'ai', '1.0.0')
    await t.release(ai, 'ai', '1.1.0', { flavour: 'b' })
    let entry = (await t.snapshot()).body.remotes.find((remote) => remote.name === 'ai')
    expect(entry).toMatchObject({
      version: '1.1.0',
      channel: 'stable',
      entryUrl: `${t.cdn.url}/ai/1.1.0/assets/remoteEntry.js`,
      preload: [
        `${t.cdn.url}/ai/1.1.0/assets/plugin-b.js`,
        `${t.cdn.url}/ai/1.1.0/assets/plugin-b.css`,
      ],
      previous: { version: '1.0.0', entryUrl: `${t.cdn.url}/ai/1.0.0/assets/remoteEntry.js` },
    })
    await t.release(ai, 'ai', '1.2.0', { flavour: 'c' })
    const rollback = await t.deploy(ai, 'POST', '/remotes/ai/rollback', {})
    expect(rollback.status).toBe(200)
    expect(channelChangeSchema.parse(await rollback.json())).toMatchObject({
      changed: true,
      before: { version: '1.2.0' },
      after: { version: '1.1.0' },
    })
    entry = (await t.snapshot()).body.remotes.find((remote) => remote.name === 'ai')
    // 1.2.0 was rolled back: it is withdrawn, never anyone's previous good version.
    expect(entry).toMatchObject({ version: '1.1.0', previous: { version: '1.0.0' } })
    const listed = await state(ai, 'ai')
    expect(listed.versions.find((v) => v.version === '1.2.0')?.withdrawnReason).toMatch(
      /rolled back by ai team/,
    )
    await t.deploy(ai, 'POST', '/remotes/ai/rollback', {})
    entry = (await t.snapshot()).body.remotes.find((remote) => remote.name === 'ai')
    expect(entry).toMatchObject({ version: '1.0.0', previous: null })
    const nothing = await t.deploy(ai, 'POST', '/remotes/ai/rollback', {})
    expect(nothing.status).toBe(409)
    expect((await errorOf(nothing)).message).toMatch(/no earlier good version to roll back to/)
    // An explicit promote makes a withdrawn version good again.
    await t.deploy(ai, 'POST', '/remotes/ai/promote', { version: '1.2.0' })
    entry = (await t.snapshot()).body.remotes.find((remote) => remote.name === 'ai')
    expect(entry).toMatchObject({ version: '1.2.0', previous: { version: '1.0.0' } })
  })

  it('says nothing changed when promoting what is already stable', async () => {
    const response = await t.deploy(billing, 'POST', '/remotes/billing/promote', {
      version: '1.0.0',
    })
    const first = channelChangeSchema.parse(await response.json())
    const again = channelChangeSchema.parse(
      await (
        await t.deploy(billing, 'POST', '/remotes/billing/promote', { version: '1.0.0' })
      ).json(),
    )
    expect(again.changed).toBe(false)
    expect(again.after.revision).toBe(first.after.revision)
  })

  it('leaves a consistent channel when two promotes race on the same revision', async () => {
    const pay = await t.token('pay')
    await t.release(pay, 'pay', '1.0.0')
    await t.publish(pay, 'pay', '1.1.0', { flavour: 'b' })
    await t.publish(pay, 'pay', '1.2.0', { flavour: 'c' })
    const { stable } = await state(pay, 'pay')
    const [one, two] = await Promise.all(
      ['1.1.0', '1.2.0'].map((version) =>
        t.deploy(pay, 'POST', '/remotes/pay/promote', {
          version,
          expectedRevision: stable.revision,
        }),
      ),
    )
    const statuses = [one?.status, two?.status].sort()
    expect(statuses).toEqual([200, 409])
    const loser = one?.status === 409 ? one : two
    const error = await errorOf(loser as Response)
    expect(error.details).toMatchObject({
      reason: 'revision_changed',
      remote: 'pay',
      channel: 'stable',
      expectedRevision: stable.revision,
      revision: stable.revision + 1,
      changedBy: expect.any(String),
    })
    expect(error.message).toMatch(
      /^Changed by .+ at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC; reload to see it\. /,
    )
    const after = await state(pay, 'pay')
    expect(after.stable.revision).toBe(stable.revision + 1)
    const promotes = after.events.filter((event) => event.kind === 'promoted')
    expect(promotes).toHaveLength(2)
    expect(promotes[0]?.version).toBe(after.stable.version)
  })

  it('applies two racing promotes without an expected revision one after the other, losing neither', async () => {
    const { stable } = await state(billing, 'billing')
    await t.publish(billing, 'billing', '1.3.0', { flavour: 'd' })
    await t.publish(billing, 'billing', '1.4.0', { flavour: 'e' })
    const answers = await Promise.all(
      ['1.3.0', '1.4.0'].map(async (version) =>
        channelChangeSchema.parse(
          await (await t.deploy(billing, 'POST', '/remotes/billing/promote', { version })).json(),
        ),
      ),
    )
    const after = await state(billing, 'billing')
    expect(after.stable.revision).toBe(stable.revision + 2)
    // Each move names exactly what it replaced: the later one replaced the earlier one.
    const [first, second] = [...answers].sort((a, b) => a.after.revision - b.after.revision)
    expect(first?.before.version).toBe(stable.version)
    expect(second?.before.version).toBe(first?.after.version)
    expect(after.stable.version).toBe(second?.after.version)
    const [newest, older] = after.events.filter((event) => event.kind === 'promoted')
    expect(newest?.fromVersion).toBe(older?.version)
  })

  it('tells open pages when what the registry serves changes', async () => {
    const { stable } = await state(billing, 'billing')
    const next = stable.version === '1.3.0' ? '1.4.0' : '1.3.0'
    const seen = t.events.length
    await t.deploy(billing, 'POST', '/remotes/billing/promote', { version: next })
    const event = await waitFor(
      () => t.events.slice(seen).find((candidate) => candidate.type === 'registry.changed'),
      { what: 'registry.changed' },
    )
    expect(event.data).toMatchObject({
      remotes: expect.arrayContaining([
        { name: 'billing', version: next, canary: null },
      ]) as unknown,
    })
  })
})

describe('rate limit', () => {
  it(
    'answers rate_limited with Retry-After once a client sends too many deploy requests',
    async () => {
      const limited = await startDeployTestApp({ env: { DEPLOY_RATE_LIMIT: '2' } })
      try {
        const token = await limited.token('billing')
        expect((await limited.deploy(token, 'GET', '/remotes/billing')).status).toBe(200)
        expect((await limited.deploy('wrong', 'GET', '/remotes/billing')).status).toBe(401)
        const third = await limited.deploy(token, 'GET', '/remotes/billing')
        expect(third.status).toBe(429)
        expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0)
      } finally {
        await limited.close()
      }
    },
    databaseSetupTimeout,
  )
})
