// Limits shared by BFF replicas: two apps over one database count as one (docs/architecture.md,
// "What state lives where"), and a replica whose database fails keeps limiting on its own.
import { errorBodySchema } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { createTestDatabase } from '@tessera/db/testing'
import { uniqueEmail } from '@tessera/emulators/supabase/test-support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newConversation, readAnswer, startAssistantTestApp } from '../testing/assistant.ts'
import type { AssistantTestApp } from '../testing/assistant.ts'
import { createManualClock, createTestApp, csrfHeaders } from '../testing/app.ts'
import { databaseSetupTimeout, testPassword } from '../testing/identity.ts'
import type { TestBrowser } from '../testing/identity.ts'

const report = JSON.stringify({ remote: 'billing', version: '1.2.3', stage: 'mount', message: 'x' })
const postReport = (app: ReturnType<typeof createTestApp>['app']) =>
  app.request('/api/telemetry/remote-errors', {
    method: 'POST',
    headers: csrfHeaders,
    body: report,
  })

describe('two replicas over one database', () => {
  let t: AssistantTestApp
  let replica: AssistantTestApp['app']

  beforeAll(async () => {
    t = await startAssistantTestApp({
      env: {
        ASSISTANT_RATE_LIMIT: '20',
        SIGN_IN_FREE_FAILURES_PER_ACCOUNT: '3',
        SIGN_IN_MAX_FAILURES_PER_CLIENT: '6',
      },
      // Both apps count in one namespace: as two BFF processes over one database do.
      deps: { sharedLimits: { namespace: 'replicas' } },
    })
    replica = t.secondApp()
  }, databaseSetupTimeout)
  afterAll(() => t.finish())

  /** The same browser (its session cookie) talking to the other replica. */
  const onReplica = (browser: TestBrowser, path: string, body: unknown) =>
    replica.request(path, {
      method: 'POST',
      headers: { ...csrfHeaders, cookie: `tessera_session=${browser.cookie() ?? ''}` },
      body: JSON.stringify(body),
    })

  it('admits exactly the chat limit across both, and the next send on either gets 429 with Retry-After', async () => {
    const ada = await t.user('ada')
    const id = await newConversation(ada)
    const path = `/api/assistant/conversations/${id}/messages`
    for (let send = 0; send < 20; send += 1) {
      const response =
        send % 2 === 0
          ? await ada.send('POST', path, { content: `Send ${send}.` })
          : await onReplica(ada, path, { content: `Send ${send}.` })
      expect(response.headers.get('ratelimit')).toMatch(`"chat";r=${19 - send};t=`)
      await readAnswer(response)
    }
    for (const refused of [
      await onReplica(ada, path, { content: 'The 21st.' }),
      await ada.send('POST', path, { content: 'The 22nd.' }),
    ]) {
      expect(refused.status).toBe(429)
      const { error } = errorBodySchema.parse(await refused.json())
      expect(error.code).toBe('rate_limited')
      const retryAfter = Number(refused.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(60)
      expect(refused.headers.get('ratelimit-policy')).toBe('"chat";q=20;w=60')
      expect(refused.headers.get('ratelimit')).toBe(`"chat";r=0;t=${retryAfter}`)
    }
    t.clock.advance(61_000)
    await readAnswer(await onReplica(ada, path, { content: 'A minute later.' }))
  })

  it('locks a client out after the same number of failed sign-ins as one replica would', async () => {
    const attempt = (app: AssistantTestApp['app'], email: string) =>
      t
        .browser({ app, client: 'guesser' })
        .send('POST', '/api/auth/sign-in', { email, password: 'not the password' })
    for (let failure = 0; failure < 6; failure += 1) {
      const response = await attempt(failure % 2 === 0 ? t.app : replica, uniqueEmail('victim'))
      expect(response.status).toBe(401)
    }
    for (const app of [t.app, replica]) {
      const refused = await attempt(app, uniqueEmail('victim'))
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(errorBodySchema.parse(await refused.json()).error.details).toMatchObject({
        limit: 'client',
      })
    }
  })

  it('backs an account off after the same number of wrong passwords, whichever replica saw them', async () => {
    const email = uniqueEmail('owner')
    await t.signUp(email)
    // Each guess from another address: only the account's back-off can refuse.
    const guess = (app: AssistantTestApp['app']) =>
      t.browser({ app }).send('POST', '/api/auth/sign-in', { email, password: 'wrong guess' })
    for (const app of [t.app, replica, t.app, replica]) expect((await guess(app)).status).toBe(401)
    const refused = await guess(t.app)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('1')
    t.clock.advance(1000)
    const owner = await t.browser({ app: replica }).send('POST', '/api/auth/sign-in', {
      email,
      password: testPassword,
    })
    expect(owner.status).toBe(200)
  })

  it('lets the owner’s browser in through any replica while strangers keep the account backed off', async () => {
    const email = uniqueEmail('known')
    await t.signUp(email)
    const laptop = await t.signIn(email)
    const deviceCookie = laptop.setCookies
      .map((line) => line.split(';')[0] ?? '')
      .findLast((pair) => pair.startsWith('tessera_device='))
    expect(deviceCookie).toBeDefined()
    const signIn = (app: AssistantTestApp['app'], password: string, cookie?: string) =>
      app.request('/api/auth/sign-in', {
        method: 'POST',
        headers: {
          ...csrfHeaders,
          'x-test-client': crypto.randomUUID(),
          ...(cookie === undefined ? {} : { cookie }),
        },
        body: JSON.stringify({ email, password }),
      })
    for (const app of [t.app, replica, t.app, replica])
      expect((await signIn(app, 'wrong guess')).status).toBe(401)
    expect((await signIn(replica, testPassword)).status).toBe(429)
    expect((await signIn(replica, testPassword, deviceCookie)).status).toBe(200)
  })
})

describe('a burst spread over two replicas', () => {
  let db: Sql
  beforeAll(async () => {
    db = await createTestDatabase()
  }, databaseSetupTimeout)
  afterAll(() => db.close())

  it('admits exactly the limit of parallel requests, however they are spread', async () => {
    const clock = createManualClock()
    const replicas = [0, 1].map(
      () =>
        createTestApp({
          env: { TELEMETRY_RATE_LIMIT: '10' },
          deps: { db, clock, sharedLimits: { namespace: 'burst' } },
        }).app,
    )
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, n) => postReport(replicas[n % 2] ?? replicas[0]!)),
    )
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status === 202)).toHaveLength(10)
    expect(statuses.filter((status) => status === 429)).toHaveLength(20)
    const remaining = answers
      .filter((answer) => answer.status === 202)
      .map((answer) => answer.headers.get('ratelimit'))
      .sort()
    expect(remaining).toEqual(
      Array.from({ length: 10 }, (_, n) => `"telemetry";r=${n};t=60`).sort(),
    )
  })
})

describe('a replica whose database fails', () => {
  /** A database that refuses every statement, or never answers one. */
  const brokenDb = (how: 'refuses' | 'hangs'): Sql =>
    new Proxy({} as Sql, {
      get(_target, property) {
        if (property === 'then') return undefined
        if (property === 'kind') return 'postgres'
        return () =>
          how === 'refuses'
            ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'))
            : new Promise(() => undefined)
      },
    })

  for (const how of ['refuses', 'hangs'] as const) {
    it(`keeps limiting in the process, with one warning, when the database ${how}`, async () => {
      const context = createTestApp({
        env: { TELEMETRY_RATE_LIMIT: '2', SHARED_LIMIT_TIMEOUT_MS: '50' },
        deps: { db: brokenDb(how) },
      })
      const statuses = []
      for (let n = 0; n < 4; n += 1) statuses.push((await postReport(context.app)).status)
      expect(statuses).toEqual([202, 202, 429, 429])
      const warnings = context.logs.filter(
        (line) => line.msg === 'shared limit unavailable: counting in this process',
      )
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatchObject({ level: 'warn', what: 'telemetry rate limit' })
    })
  }
})
