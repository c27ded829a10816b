import { errorBodySchema } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import type { ResumeResult, Sessions } from '../../modules/identity/sessions.ts'
import { sessionCookie, sessionCookieName } from './session.ts'
import { bareApp } from '../../testing/middleware-app.ts'
import { testSession } from '../../testing/sessions.ts'

const token = 'A'.repeat(43)
const session = testSession

/** Sessions that know one cookie: `token` is active, anything else is `outcome`. */
function fakeSessions(outcome: ResumeResult = { state: 'unknown' }) {
  const resumed: string[] = []
  const sessions = {
    resume: async (cookie: string) => {
      resumed.push(cookie)
      return cookie === token ? { state: 'active' as const, session } : outcome
    },
  } as Partial<Sessions> as Sessions
  return { sessions, resumed }
}

function app(options: { secure: boolean; outcome?: ResumeResult }) {
  const { sessions, resumed } = fakeSessions(options.outcome)
  const built = bareApp()
    .use(sessionCookie({ sessions, secure: options.secure, maxAgeSeconds: 3600 }))
    .get('/whoami', async (c) => c.json({ id: (await c.var.auth.current())?.id ?? null }))
    .get('/private', async (c) => c.json({ id: (await c.var.auth.require()).id }))
    .get('/public', (c) => c.text('ok'))
    .post('/in', (c) => {
      c.var.auth.signIn(token)
      return c.text('in')
    })
    .post('/out', (c) => {
      c.var.auth.signOut()
      return c.text('out')
    })
  return { app: built, resumed }
}

describe('sessionCookie', () => {
  it('sets an HttpOnly, SameSite=Lax, Path=/ cookie without Secure over http', async () => {
    const response = await app({ secure: false }).app.request('/in', { method: 'POST' })
    expect(response.headers.get('set-cookie')).toBe(
      `tessera_session=${token}; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax`,
    )
  })

  it('uses the __Host- prefix and Secure over https', async () => {
    const { app: secure } = app({ secure: true })
    const response = await secure.request('/in', { method: 'POST' })
    expect(response.headers.get('set-cookie')).toBe(
      `__Host-tessera_session=${token}; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax`,
    )
    expect(sessionCookieName({ secure: true })).toBe('__Host-tessera_session')
    // Only the prefixed cookie counts: a plain one could have been planted by a sibling domain.
    const planted = await secure.request('/whoami', {
      headers: { cookie: `tessera_session=${token}` },
    })
    expect(await planted.json()).toEqual({ id: null })
    const real = await secure.request('/whoami', {
      headers: { cookie: `__Host-tessera_session=${token}` },
    })
    expect(await real.json()).toEqual({ id: 'session-1' })
  })

  it('looks the session up only when a route asks, and once per request', async () => {
    const { app: lazy, resumed } = app({ secure: false })
    await lazy.request('/public', { headers: { cookie: `tessera_session=${token}` } })
    expect(resumed).toEqual([])
    await lazy.request('/whoami', { headers: { cookie: `tessera_session=${token}` } })
    expect(resumed).toEqual([token])
  })

  it('works the client’s address out only when the session is looked up, not when it is kept', async () => {
    let resolved = 0
    const seen: Array<string | undefined> = []
    const sessions = {
      resume: async (_cookie: string, context?: { ip?: string | undefined }) => {
        // Kept in memory: the context is not read. The first request is a lookup that reads it.
        if (seen.length === 0) seen.push(context?.ip)
        return { state: 'active' as const, session }
      },
    } as Partial<Sessions> as Sessions
    const built = bareApp()
      .use(
        sessionCookie({
          sessions,
          secure: false,
          maxAgeSeconds: 3600,
          clientKey: () => {
            resolved++
            return '203.0.113.7'
          },
        }),
      )
      .get('/whoami', async (c) => c.json({ id: (await c.var.auth.current())?.id ?? null }))
    for (let i = 0; i < 3; i++)
      await built.request('/whoami', { headers: { cookie: `tessera_session=${token}` } })
    expect(seen).toEqual(['203.0.113.7'])
    expect(resolved).toBe(1)
  })

  it('reads the cookie from each request’s own header, a header seen before or a long one', async () => {
    const { app: reader } = app({ secure: false })
    const whoami = async (cookie: string) =>
      (
        (await (await reader.request('/whoami', { headers: { cookie } })).json()) as {
          id: string | null
        }
      ).id
    const withOthers = `theme=dark; tessera_session=${token}; lang=en`
    expect(await whoami(withOthers)).toBe('session-1')
    expect(await whoami(withOthers)).toBe('session-1')
    expect(await whoami('theme=dark')).toBeNull()
    expect(await whoami(`tessera_session=${'B'.repeat(43)}`)).toBeNull()
    expect(await whoami(withOthers)).toBe('session-1')
    const long = `padding=${'x'.repeat(2000)}; tessera_session=${token}`
    expect(await whoami(long)).toBe('session-1')
    expect(await whoami(long)).toBe('session-1')
  })

  it('answers unauthenticated without a cookie and session_revoked for a revoked one, and drops the cookie', async () => {
    const { app: revoked } = app({ secure: false, outcome: { state: 'revoked' } })
    const none = await revoked.request('/private')
    expect(errorBodySchema.parse(await none.json()).error.code).toBe('unauthenticated')
    expect(none.headers.get('set-cookie')).toBeNull()
    const gone = await revoked.request('/private', {
      headers: { cookie: `tessera_session=${'B'.repeat(43)}` },
    })
    expect(gone.status).toBe(401)
    expect(errorBodySchema.parse(await gone.json()).error.code).toBe('session_revoked')
    expect(gone.headers.get('set-cookie')).toBe(
      'tessera_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax',
    )
  })

  it('removes the cookie on sign-out', async () => {
    const response = await app({ secure: true }).app.request('/out', { method: 'POST' })
    expect(response.headers.get('set-cookie')).toBe(
      '__Host-tessera_session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax',
    )
  })
})
