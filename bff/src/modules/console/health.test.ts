import { describe, expect, it } from 'vitest'
import { httpProbe, runProbes } from './health.ts'

describe('the health probes', () => {
  it('answers each probe with its latency, or a sentence when it fails or takes too long', async () => {
    const checks = await runProbes(
      [
        { name: 'database', probe: async () => undefined },
        {
          name: 'stripe',
          probe: async () => {
            throw new Error('Stripe could not be reached.')
          },
        },
        { name: 'model', probe: () => new Promise(() => undefined) },
      ],
      { timeoutMs: 50 },
    )
    expect(checks[0]).toMatchObject({ name: 'database', ok: true, problem: null })
    expect(checks[0]?.latencyMs).toBeGreaterThanOrEqual(0)
    expect(checks[1]).toEqual({
      name: 'stripe',
      ok: false,
      latencyMs: null,
      problem: 'Stripe could not be reached.',
    })
    expect(checks[2]).toMatchObject({ ok: false, problem: 'No answer within 50 ms.' })
  })

  it('counts any answer below 500 as reachable, and says when a key is refused or the service fails', async () => {
    const answering = (status: number) =>
      (() => Promise.resolve(new Response('', { status }))) as typeof fetch
    await expect(
      httpProbe(answering(404), 'Stripe', 'http://s.test/v1')(new AbortController().signal),
    ).resolves.toBeUndefined()
    await expect(
      httpProbe(answering(401), 'Stripe', 'http://s.test/v1')(new AbortController().signal),
    ).rejects.toThrow(/refused this BFF's key/)
    await expect(
      httpProbe(answering(503), 'Stripe', 'http://s.test/v1')(new AbortController().signal),
    ).rejects.toThrow('Stripe answered 503 at http://s.test.')
    const refusing = (() => Promise.reject(new Error('ECONNREFUSED'))) as typeof fetch
    await expect(
      httpProbe(refusing, 'Supabase Auth', 'http://a.test/x')(new AbortController().signal),
    ).rejects.toThrow('Supabase Auth could not be reached at http://a.test (ECONNREFUSED).')
  })
})
