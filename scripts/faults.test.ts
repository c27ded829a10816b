import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { errorBodySchema, signedInSchema } from '@tessera/contracts'
import type { ErrorBody } from '@tessera/contracts'
import { startBff } from '@tessera/bff/node'
import type { RunningBff } from '@tessera/bff/node'
import { testPassword } from '@tessera/bff/testing/identity'
import { openDatabase, prepareDatabase } from '@tessera/db/open-database'
import type { Sql } from '@tessera/db/sql'
import { startTestSupabase, uniqueEmail } from '@tessera/emulators/supabase/test-support'
import type { TestSupabase } from '@tessera/emulators/supabase/test-support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPostgresServer } from './lib/postgres-server.ts'
import type { PostgresServer } from './lib/postgres-server.ts'
import { startTcpProxy } from './lib/tcp-proxy.ts'
import type { TcpProxy } from './lib/tcp-proxy.ts'

/**
 * The BFF as deployed (a Node server on a PostgreSQL server), with its database and Supabase Auth
 * behind TCP proxies that cut, refuse, stall or slow their connections. What people get is a
 * catalogued error that says to try again, never a 500 or a hang, and the BFF serves again once
 * the service is back, without a restart. (The model's and Stripe's faults are injected through
 * their stand-ins in bff/src/modules/assistant/assistant-faults.test.ts and the billing tests.)
 */
let pg: PostgresServer
let sql: Sql
let supabase: TestSupabase
let database: TcpProxy
let auth: TcpProxy
let bff: RunningBff

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

beforeAll(async () => {
  pg = startPostgresServer(await freePort())
  sql = await openDatabase({ url: pg.url })
  await prepareDatabase(sql, { bootstrap: true })
  supabase = await startTestSupabase({ db: sql, emailRateLimitSeconds: 0 })
  database = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(pg.url).port) })
  auth = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(supabase.url).port) })
  bff = await startBff({
    env: {
      PORT: '0',
      LOG_LEVEL: 'silent',
      PUBLIC_ORIGIN: 'http://app.tessera.test',
      DATABASE_URL: `postgres://postgres@127.0.0.1:${database.port}/postgres`,
      DATABASE_BOOTSTRAP: 'false',
      SUPABASE_URL: auth.url('http'),
      SUPABASE_JWT_ISSUER: `${supabase.url}/auth/v1`,
    },
    closeGraceMs: 1000,
  })
}, 120_000)

afterAll(async () => {
  await bff?.close()
  await auth?.close()
  await database?.close()
  await supabase?.stop()
  await sql?.close()
  pg?.stop()
}, 60_000)

const headers = { 'x-tessera-csrf': '1', 'content-type': 'application/json' }

function post(path: string, body: unknown, cookie?: string): Promise<Response> {
  return fetch(`${bff.url}${path}`, {
    method: 'POST',
    headers: { ...headers, origin: bff.url, ...(cookie === undefined ? {} : { cookie }) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  })
}

function get(path: string, cookie: string): Promise<Response> {
  return fetch(`${bff.url}${path}`, { headers: { cookie }, signal: AbortSignal.timeout(30_000) })
}

/** The session cookie a response sets (sign-in also sets the known-browser cookie). */
function sessionCookieOf(response: Response): string {
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('tessera_session='))
  return (cookie ?? '').split(';')[0] ?? ''
}

async function errorOf(response: Response): Promise<ErrorBody['error']> {
  return errorBodySchema.parse(await response.json()).error
}

/** A confirmed, signed-in user: the session cookie. */
async function signUp(label: string): Promise<{ email: string; cookie: string }> {
  const email = uniqueEmail(label)
  expect((await post('/api/auth/sign-up', { email, password: testPassword })).status).toBe(202)
  const mail = await supabase.waitForMail(email)
  const confirmed = await post('/api/auth/confirm', { tokenHash: mail.token_hash, type: 'signup' })
  expect(confirmed.status).toBe(200)
  return { email, cookie: sessionCookieOf(confirmed) }
}

describe('the BFF under faults', () => {
  it('answers upstream_unavailable while PostgreSQL is down, and serves again once it is back', async () => {
    const { cookie } = await signUp('db-down')
    expect((await get('/api/me', cookie)).status).toBe(200)

    database.refuse()
    database.cut()
    // The sessions list is read from the database on every request, whatever the session cache.
    const down = await get('/api/me/sessions', cookie)
    expect(down.status).toBe(503)
    const error = await errorOf(down)
    expect(error.code).toBe('upstream_unavailable')
    expect(error.message).toMatch(/try again/i)

    database.heal()
    await expect
      .poll(async () => (await get('/api/me/sessions', cookie)).status, { timeout: 15_000 })
      .toBe(200)
  })

  it('serves more slowly, but correctly, while PostgreSQL answers slowly', async () => {
    const { cookie } = await signUp('db-slow')
    database.slow(150)
    try {
      const started = Date.now()
      const response = await get('/api/me/sessions', cookie)
      expect(response.status).toBe(200)
      expect(Date.now() - started).toBeGreaterThanOrEqual(150)
    } finally {
      database.heal()
    }
  })

  it('answers upstream_unavailable when Supabase Auth is down during sign-in, and signs in once it is back', async () => {
    const { email } = await signUp('auth-down')
    auth.refuse()
    auth.cut()
    const refused = await post('/api/auth/sign-in', { email, password: testPassword })
    expect(refused.status).toBe(503)
    expect((await errorOf(refused)).code).toBe('upstream_unavailable')

    auth.heal()
    const signedIn = await post('/api/auth/sign-in', { email, password: testPassword })
    expect(signedIn.status).toBe(200)
    const cookie = sessionCookieOf(signedIn)
    expect(signedInSchema.parse(await (await get('/api/me', cookie)).json()).user.email).toBe(email)
  })

  it('answers within its timeout when Supabase Auth stalls during sign-in, never hanging', async () => {
    const { email } = await signUp('auth-stall')
    auth.stall()
    try {
      const started = Date.now()
      const stalled = await post('/api/auth/sign-in', { email, password: testPassword })
      expect([503, 504]).toContain(stalled.status)
      expect(['upstream_unavailable', 'upstream_timeout']).toContain((await errorOf(stalled)).code)
      expect(Date.now() - started).toBeLessThan(25_000)
    } finally {
      auth.heal()
    }
  }, 40_000)
})
