import { defaultApiKeys } from '@tessera/emulators/supabase/config'
import { describe, expect, it } from 'vitest'
import { EnvError, loadEnv, localSupabaseKeys, resolveFromRoot } from './env.ts'

describe('loadEnv', () => {
  it('defaults to the keys the local Supabase stand-in accepts', () => {
    expect(localSupabaseKeys).toEqual(defaultApiKeys)
  })

  it('gives the local-stack defaults when nothing is set', () => {
    const env = loadEnv({}, { rootDir: '/repo' })
    expect(env).toMatchObject({
      PORT: 8787,
      HOST_NAME: '127.0.0.1',
      PUBLIC_ORIGIN: 'http://localhost:8787',
      ALLOWED_ORIGINS: ['http://localhost:8787', 'http://localhost:5173'],
      HOST_DIST: '/repo/host/dist',
      LOG_LEVEL: 'info',
      BODY_LIMIT_BYTES: 65536,
      TELEMETRY_BODY_LIMIT_BYTES: 8192,
      TELEMETRY_RATE_LIMIT: 60,
      SSE_HEARTBEAT_MS: 15000,
    })
  })

  it('resolves relative paths against the repository root, not the working directory', () => {
    const env = loadEnv({})
    expect(env.PGLITE_DATA_DIR).toBe(new URL('../../../.tessera/pglite', import.meta.url).pathname)
    expect(env.HOST_DIST).toBe(new URL('../../../host/dist', import.meta.url).pathname)
  })

  it('keeps absolute paths as they are', () => {
    const env = loadEnv({ HOST_DIST: '/tmp/host-dist' }, { rootDir: '/repo' })
    expect(env.HOST_DIST).toBe('/tmp/host-dist')
  })

  it('derives the default allowed origins from PUBLIC_ORIGIN', () => {
    const env = loadEnv({ PUBLIC_ORIGIN: 'https://app.example.com/' })
    expect(env.PUBLIC_ORIGIN).toBe('https://app.example.com')
    expect(env.ALLOWED_ORIGINS).toEqual(['https://app.example.com', 'http://localhost:5173'])
  })

  it('parses a comma list of allowed origins into origins', () => {
    const env = loadEnv({ ALLOWED_ORIGINS: 'https://a.example.com/, http://localhost:3000 ,' })
    expect(env.ALLOWED_ORIGINS).toEqual(['https://a.example.com', 'http://localhost:3000'])
  })

  it('keeps the folder of a deploy storage location, and refuses one with a query', () => {
    expect(
      loadEnv({ DEPLOY_STORAGE_ORIGINS: 'https://cdn.example/remotes/, https://files.example' })
        .DEPLOY_STORAGE_ORIGINS,
    ).toEqual(['https://cdn.example/remotes', 'https://files.example'])
    expect(() => loadEnv({ DEPLOY_STORAGE_ORIGINS: 'https://cdn.example/?v=1' })).toThrow(
      /DEPLOY_STORAGE_ORIGINS/,
    )
  })

  it('treats an empty variable as unset', () => {
    expect(loadEnv({ PORT: '', LOG_LEVEL: '' }).PORT).toBe(8787)
  })

  it('coerces numbers and accepts port 0 for tests', () => {
    const env = loadEnv({ PORT: '0', TELEMETRY_RATE_LIMIT: '5', SSE_HEARTBEAT_MS: '20' })
    expect(env).toMatchObject({ PORT: 0, TELEMETRY_RATE_LIMIT: 5, SSE_HEARTBEAT_MS: 20 })
  })

  it('fails once, naming every bad key', () => {
    let caught: unknown
    try {
      loadEnv({
        PORT: 'eighty',
        LOG_LEVEL: 'loud',
        ALLOWED_ORIGINS: 'ftp://files.example.com',
        BODY_LIMIT_BYTES: '-1',
      })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(EnvError)
    const error = caught as EnvError
    expect(error.keys.sort()).toEqual(['ALLOWED_ORIGINS', 'BODY_LIMIT_BYTES', 'LOG_LEVEL', 'PORT'])
    expect(error.message).toContain('PORT')
    expect(error.message).toContain('LOG_LEVEL')
  })
})

describe('loadEnv for identity', () => {
  it('points at the local stack by default: PGlite, the Supabase stand-in and its keys', () => {
    const env = loadEnv({}, { rootDir: '/repo' })
    expect(env).toMatchObject({
      PGLITE_DATA_DIR: '/repo/.tessera/pglite',
      DATABASE_BOOTSTRAP: true,
      DATABASE_MIGRATE: true,
      SUPABASE_URL: 'http://127.0.0.1:54321',
      SUPABASE_ANON_KEY: defaultApiKeys.anon,
      SUPABASE_SERVICE_ROLE_KEY: defaultApiKeys.serviceRole,
      SUPABASE_JWT_ISSUER: 'http://127.0.0.1:54321/auth/v1',
      SUPABASE_JWKS_URL: 'http://127.0.0.1:54321/auth/v1/.well-known/jwks.json',
      SESSION_COOKIE_SECURE: false,
      SESSION_REFRESH_MARGIN_SECONDS: 120,
      SIGN_IN_FREE_FAILURES_PER_ACCOUNT: 5,
      SIGN_IN_BACKOFF_BASE_SECONDS: 1,
      SIGN_IN_BACKOFF_MAX_SECONDS: 900,
      SIGN_IN_MAX_FAILURES_PER_CLIENT: 50,
      TRUSTED_PROXIES: [],
    })
    expect(env.DATABASE_URL).toBeUndefined()
  })

  it('does not bootstrap a server database unless told to', () => {
    const url = 'postgres://tessera@db.internal:5432/tessera'
    expect(loadEnv({ DATABASE_URL: url }).DATABASE_BOOTSTRAP).toBe(false)
    expect(loadEnv({ DATABASE_URL: url, DATABASE_BOOTSTRAP: 'true' }).DATABASE_BOOTSTRAP).toBe(true)
    expect(() => loadEnv({ DATABASE_URL: 'http://db.internal' })).toThrow(EnvError)
  })

  it('makes the session cookie Secure when the BFF is served over https', () => {
    expect(loadEnv({ PUBLIC_ORIGIN: 'https://app.example.com' }).SESSION_COOKIE_SECURE).toBe(true)
  })

  it('requires the project’s own keys when SUPABASE_URL is not the local stand-in', () => {
    let caught: unknown
    try {
      loadEnv({ SUPABASE_URL: 'https://abcd.supabase.co/' })
    } catch (error) {
      caught = error
    }
    expect((caught as EnvError).keys).toEqual(['SUPABASE_ANON_KEY', 'SUPABASE_SERVICE_ROLE_KEY'])
    const env = loadEnv({
      SUPABASE_URL: 'https://abcd.supabase.co/',
      SUPABASE_ANON_KEY: 'sb_publishable_x',
      SUPABASE_SERVICE_ROLE_KEY: 'sb_secret_x',
    })
    expect(env.SUPABASE_JWT_ISSUER).toBe('https://abcd.supabase.co/auth/v1')
  })

  it('requires real Stripe and OpenAI keys when those services are not the local stand-ins', () => {
    let caught: unknown
    try {
      loadEnv({
        STRIPE_API_URL: 'https://api.stripe.com',
        OPENAI_BASE_URL: 'https://api.openai.com/v1',
      })
    } catch (error) {
      caught = error
    }
    expect((caught as EnvError).keys).toEqual([
      'STRIPE_SECRET_KEY',
      'STRIPE_WEBHOOK_SECRET',
      'OPENAI_API_KEY',
    ])
    const env = loadEnv({
      STRIPE_API_URL: 'https://api.stripe.com/',
      STRIPE_SECRET_KEY: 'sk_live_x',
      STRIPE_WEBHOOK_SECRET: 'whsec_x',
      OPENAI_BASE_URL: 'http://localhost:11434/v1',
    })
    expect(env.STRIPE_API_URL).toBe('https://api.stripe.com')
    expect(env.OPENAI_API_KEY).toBe('sk-tessera-local')
  })

  it('sends email to the local mailbox by default, and needs a real key for a real mail API', () => {
    const local = loadEnv({})
    expect(local.MAIL_API_URL).toBe('http://127.0.0.1:54324')
    expect(local.MAIL_FROM).toBe('Tessera <no-reply@tessera.local>')
    let caught: unknown
    try {
      loadEnv({ MAIL_API_URL: 'https://api.resend.com' })
    } catch (error) {
      caught = error
    }
    expect((caught as EnvError).keys).toEqual(['MAIL_API_KEY'])
    const real = loadEnv({ MAIL_API_URL: 'https://api.resend.com/', MAIL_API_KEY: 're_live_x' })
    expect(real.MAIL_API_URL).toBe('https://api.resend.com')
  })

  it('parses trusted proxies as addresses and CIDR ranges of both families', () => {
    const env = loadEnv({ TRUSTED_PROXIES: '127.0.0.1/32, ::1,10.0.0.0/8' })
    expect(env.TRUSTED_PROXIES).toEqual([
      { network: 0xffff_7f00_0001n, prefixLength: 128 },
      { network: 1n, prefixLength: 128 },
      { network: 0xffff_0a00_0000n, prefixLength: 104 },
    ])
  })

  it('refuses a trusted proxy entry that is not an address or range, naming the entry', () => {
    expect(() => loadEnv({ TRUSTED_PROXIES: '10.0.0.0/8, proxy.internal, 10.0.0.0/40' })).toThrow(
      /TRUSTED_PROXIES \("proxy\.internal" is not an IP address or CIDR range.*TRUSTED_PROXIES \("10\.0\.0\.0\/40"/,
    )
  })

  it('refuses an abandoned-hold time a live answer could reach, and takes a longer one', () => {
    expect(() =>
      loadEnv({ ASSISTANT_MAX_ANSWER_SECONDS: '12', ASSISTANT_ABANDONED_HOLD_SECONDS: '30' }),
    ).toThrow(/ASSISTANT_ABANDONED_HOLD_SECONDS \(must be more than .* \(32 s\)\)/)
    const env = loadEnv({
      ASSISTANT_MAX_ANSWER_SECONDS: '12',
      ASSISTANT_FIRST_TOKEN_TIMEOUT_MS: '4000',
      ASSISTANT_ABANDONED_HOLD_SECONDS: '17',
      ASSISTANT_HOLD_SWEEP_SECONDS: '1',
    })
    expect(env).toMatchObject({
      ASSISTANT_ABANDONED_HOLD_SECONDS: 17,
      ASSISTANT_HOLD_SWEEP_SECONDS: 1,
    })
    expect(loadEnv({})).toMatchObject({
      ASSISTANT_ABANDONED_HOLD_SECONDS: 360,
      ASSISTANT_HOLD_SWEEP_SECONDS: 60,
    })
  })

  it('refuses a priority reserve that leaves the other plans no slot to the model, unless there is no cap', () => {
    expect(() =>
      loadEnv({ ASSISTANT_MODEL_CONCURRENCY: '8', ASSISTANT_PRIORITY_RESERVED: '8' }),
    ).toThrow(/ASSISTANT_PRIORITY_RESERVED \(must be less than ASSISTANT_MODEL_CONCURRENCY \(8\)\)/)
    expect(loadEnv({})).toMatchObject({
      ASSISTANT_MODEL_CONCURRENCY: 256,
      ASSISTANT_PRIORITY_RESERVED: 64,
    })
    expect(
      loadEnv({ ASSISTANT_MODEL_CONCURRENCY: '0', ASSISTANT_PRIORITY_RESERVED: '64' }),
    ).toMatchObject({ ASSISTANT_MODEL_CONCURRENCY: 0 })
  })

  it('refuses a refresh margin inside supabase-js’s own 90 s', () => {
    expect(() => loadEnv({ SESSION_REFRESH_MARGIN_SECONDS: '60' })).toThrow(
      /SESSION_REFRESH_MARGIN_SECONDS/,
    )
  })

  it('allows overrides from loopback in the local stack and from nowhere behind a public origin', () => {
    expect(loadEnv({}).REMOTE_OVERRIDE_ORIGINS).toEqual([
      'http://localhost:*',
      'http://127.0.0.1:*',
      'http://[::1]:*',
    ])
    expect(loadEnv({ PUBLIC_ORIGIN: 'https://app.example.com' }).REMOTE_OVERRIDE_ORIGINS).toEqual(
      [],
    )
  })

  it('parses override origins, "none", and refuses plain http away from loopback', () => {
    expect(
      loadEnv({
        PUBLIC_ORIGIN: 'https://app.example.com',
        REMOTE_OVERRIDE_ORIGINS: 'https://*.Preview.example.com/, http://localhost:*',
      }).REMOTE_OVERRIDE_ORIGINS,
    ).toEqual(['https://*.preview.example.com', 'http://localhost:*'])
    expect(loadEnv({ REMOTE_OVERRIDE_ORIGINS: 'none' }).REMOTE_OVERRIDE_ORIGINS).toEqual([])
    expect(() => loadEnv({ REMOTE_OVERRIDE_ORIGINS: 'http://preview.example.com' })).toThrow(
      /REMOTE_OVERRIDE_ORIGINS/,
    )
    expect(() => loadEnv({ REMOTE_OVERRIDE_ORIGINS: 'https://x.example.com/path' })).toThrow(
      /REMOTE_OVERRIDE_ORIGINS/,
    )
  })
})

describe('resolveFromRoot', () => {
  it('normalises dot segments and keeps unusual characters', () => {
    expect(resolveFromRoot('/repo', './a/../b/c d#1.json')).toBe('/repo/b/c d#1.json')
    expect(resolveFromRoot('/my repo/', 'x')).toBe('/my repo/x')
  })
})
