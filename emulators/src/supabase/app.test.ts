import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Sql } from '@tessera/db/sql'
import { createTestDatabase, databaseSetupTimeout } from '@tessera/db/testing'
import type { SupabaseEmulator } from './app.ts'
import { createSupabaseEmulator } from './app.ts'
import { defaultApiKeys } from './config.ts'

let db: Sql
let emulator: SupabaseEmulator
const unexpected: unknown[] = []

beforeAll(async () => {
  db = await createTestDatabase()
  emulator = await createSupabaseEmulator({
    db,
    siteUrl: 'http://app.test',
    jwtIssuer: 'http://supabase.test/auth/v1',
    bcryptCost: 4,
    onUnexpectedError: (error) => unexpected.push(error),
  })
}, databaseSetupTimeout)
afterAll(async () => {
  await db.close()
})

const anon = { apikey: defaultApiKeys.anon }
const service = {
  apikey: defaultApiKeys.serviceRole,
  authorization: `Bearer ${defaultApiKeys.serviceRole}`,
}
const v2024 = { 'x-supabase-api-version': '2024-01-01' }

function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return Promise.resolve(
    emulator.app.request(`/auth/v1${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...anon, ...headers },
    }),
  )
}

describe('the API gateway in front of GoTrue', () => {
  it('refuses requests without an API key or with an unknown one, like the Supabase gateway', async () => {
    const missing = await emulator.app.request('/auth/v1/settings')
    expect(missing.status).toBe(401)
    expect(await missing.json()).toMatchObject({ message: 'No API key found in request' })
    const wrong = await emulator.app.request('/auth/v1/settings', { headers: { apikey: 'nope' } })
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toMatchObject({ message: 'Invalid API key' })
    const viaQuery = await emulator.app.request(`/auth/v1/settings?apikey=${defaultApiKeys.anon}`)
    expect(viaQuery.status).toBe(200)
  })

  it('leaves the health check and the JWKS open, at the root and under /auth/v1', async () => {
    expect((await emulator.app.request('/auth/v1/health')).status).toBe(200)
    for (const path of ['/.well-known/jwks.json', '/auth/v1/.well-known/jwks.json']) {
      const response = await emulator.app.request(path)
      expect(response.status).toBe(200)
      const { keys } = (await response.json()) as { keys: Array<Record<string, unknown>> }
      expect(keys).toEqual([
        expect.objectContaining({
          kty: 'EC',
          crv: 'P-256',
          alg: 'ES256',
          use: 'sig',
          kid: emulator.key.kid,
        }),
      ])
      expect(keys[0]).not.toHaveProperty('d')
    }
  })

  it('reports its settings as GoTrue does', async () => {
    const response = await emulator.app.request('/auth/v1/settings', { headers: anon })
    expect(await response.json()).toMatchObject({
      disable_signup: false,
      mailer_autoconfirm: false,
      external: { email: true },
    })
  })
})

describe('GoTrue error bodies', () => {
  it('uses { code, message } and echoes X-Supabase-Api-Version when the client sends 2024-01-01', async () => {
    const response = await post(
      '/token?grant_type=password',
      JSON.stringify({ email: 'a@b.test', password: 'x' }),
      v2024,
    )
    expect(response.status).toBe(400)
    expect(response.headers.get('x-supabase-api-version')).toBe('2024-01-01')
    expect(await response.json()).toEqual({
      code: 'invalid_credentials',
      message: 'Invalid login credentials',
    })
  })

  it('uses the legacy { code: status, error_code, msg } without the header', async () => {
    const response = await post(
      '/token?grant_type=password',
      JSON.stringify({ email: 'a@b.test', password: 'x' }),
    )
    expect(response.headers.get('x-supabase-api-version')).toBeNull()
    expect(await response.json()).toEqual({
      code: 400,
      error_code: 'invalid_credentials',
      msg: 'Invalid login credentials',
    })
  })

  it('puts weak_password reasons next to the code', async () => {
    const response = await post(
      '/signup',
      JSON.stringify({ email: 'weak@b.test', password: '1' }),
      v2024,
    )
    expect(response.status).toBe(422)
    expect(await response.json()).toEqual({
      code: 'weak_password',
      message: 'Password should be at least 6 characters.',
      weak_password: { reasons: ['length'] },
    })
  })

  it('answers bad_json to malformed JSON and to fields of the wrong type', async () => {
    for (const body of [
      '{',
      '[1,2]',
      '"text"',
      JSON.stringify({ email: 42, password: 'long enough' }),
    ]) {
      const response = await post('/signup', body, v2024)
      expect(response.status).toBe(400)
      expect(((await response.json()) as { code: string }).code).toBe('bad_json')
    }
  })

  it('names unsupported flows instead of misbehaving', async () => {
    const pkce = await post(
      '/signup',
      JSON.stringify({ email: 'p@b.test', password: 'long enough', code_challenge: 'abc' }),
      v2024,
    )
    expect(pkce.status).toBe(400)
    expect(((await pkce.json()) as { message: string }).message).toMatch(/PKCE/)
    const grant = await post('/token?grant_type=pkce', '{}', v2024)
    expect(((await grant.json()) as { message: string }).message).toBe(
      'grant_type=pkce is not supported by the Tessera Supabase stand-in (password and refresh_token are).',
    )
    const unknown = await emulator.app.request('/auth/v1/factors', {
      headers: { ...anon, ...v2024 },
    })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toEqual({
      code: 'not_found',
      message: 'The Tessera Supabase stand-in does not provide GET /auth/v1/factors.',
    })
  })

  it('refuses a body over 1 MiB with 413', async () => {
    const response = await post(
      '/signup',
      JSON.stringify({ email: 'big@b.test', password: 'x'.repeat(1_100_000) }),
      v2024,
    )
    expect(response.status).toBe(413)
  })

  it('asks for a bearer token on /user and rejects one that is not a JWT of the stand-in', async () => {
    const missing = await emulator.app.request('/auth/v1/user', { headers: { ...anon, ...v2024 } })
    expect(missing.status).toBe(401)
    expect(((await missing.json()) as { code: string }).code).toBe('no_authorization')
    const forged = await emulator.app.request('/auth/v1/user', {
      headers: { ...anon, ...v2024, authorization: `Bearer ${defaultApiKeys.anon}` },
    })
    expect(forged.status).toBe(403)
    expect(((await forged.json()) as { code: string }).code).toBe('bad_jwt')
  })

  it('never answers 500 to odd input on any public endpoint', async () => {
    const paths = [
      '/signup',
      '/token?grant_type=password',
      '/token?grant_type=refresh_token',
      '/recover',
      '/otp',
      '/verify',
      '/resend',
    ]
    const value = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.constantFrom(
        "' or 1=1 --",
        'a@b.test\u0000',
        '💥@🦄.test',
        'ROBERT"); DROP TABLE auth.users;--@x.test',
      ),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 3 }),
    )
    const body = fc.record(
      {
        email: value,
        password: value,
        token: value,
        token_hash: value,
        type: value,
        refresh_token: value,
        data: fc.oneof(value, fc.dictionary(fc.string(), value)),
      },
      { requiredKeys: [] },
    )
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), body, async (path, payload) => {
        const response = await post(path, JSON.stringify(payload), v2024)
        expect(response.status).toBeLessThan(500)
      }),
      { numRuns: 120 },
    )
    expect(unexpected).toEqual([])
  })
})

describe('admin endpoints', () => {
  it('create, list, read, update and delete users with the service role key only', async () => {
    const refused = await emulator.app.request('/auth/v1/admin/users', {
      headers: { ...anon, ...v2024 },
    })
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as { code: string }).code).toBe('not_admin')

    const created = await post(
      '/admin/users',
      JSON.stringify({
        email: 'Admin.Made@Example.test',
        password: 'long enough',
        email_confirm: true,
        user_metadata: { plan: 'pro' },
      }),
      { ...service, ...v2024 },
    )
    expect(created.status).toBe(200)
    const user = (await created.json()) as {
      id: string
      email: string
      email_confirmed_at?: string
      user_metadata: object
    }
    expect(user).toMatchObject({
      email: 'admin.made@example.test',
      email_confirmed_at: expect.any(String),
      user_metadata: { plan: 'pro' },
    })

    const duplicate = await post(
      '/admin/users',
      JSON.stringify({ email: 'admin.made@example.test' }),
      { ...service, ...v2024 },
    )
    expect(duplicate.status).toBe(422)
    expect(((await duplicate.json()) as { code: string }).code).toBe('email_exists')

    const list = await emulator.app.request('/auth/v1/admin/users?page=1&per_page=1', {
      headers: { ...service, ...v2024 },
    })
    expect(list.headers.get('x-total-count')).toEqual(expect.stringMatching(/^\d+$/))
    expect(((await list.json()) as { users: unknown[] }).users).toHaveLength(1)

    const banned = await emulator.app.request(`/auth/v1/admin/users/${user.id}`, {
      method: 'PUT',
      body: JSON.stringify({ ban_duration: '24h', user_metadata: { plan: 'free' } }),
      headers: { 'content-type': 'application/json', ...service, ...v2024 },
    })
    expect(await banned.json()).toMatchObject({
      banned_until: expect.any(String),
      user_metadata: { plan: 'free' },
    })
    const signIn = await post(
      '/token?grant_type=password',
      JSON.stringify({ email: user.email, password: 'long enough' }),
      v2024,
    )
    expect(((await signIn.json()) as { code: string }).code).toBe('user_banned')

    const deleted = await emulator.app.request(`/auth/v1/admin/users/${user.id}`, {
      method: 'DELETE',
      headers: { ...service, ...v2024 },
    })
    expect(deleted.status).toBe(200)
    const gone = await emulator.app.request(`/auth/v1/admin/users/${user.id}`, {
      headers: { ...service, ...v2024 },
    })
    expect(gone.status).toBe(404)
    expect(((await gone.json()) as { code: string }).code).toBe('user_not_found')
  })
})
