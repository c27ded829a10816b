import { describe, expect, it } from 'vitest'
import { createDeployApi, DeployApiError } from './deploy-api.ts'

const channel = (name: 'stable' | 'canary') => ({
  channel: name,
  version: null,
  percentage: null,
  revision: 0,
  updatedAt: '2026-11-27T00:00:00.000Z',
})
const state = {
  remote: 'billing',
  stable: channel('stable'),
  canary: channel('canary'),
  previousGood: null,
  versions: [],
  events: [],
}

function answers(...list: { status: number; body: unknown }[]) {
  const sent: string[] = []
  const fetch = (async (url: string | URL | Request) => {
    sent.push(String(url))
    const next = list.shift()
    if (!next) throw new Error('no answer left')
    return new Response(JSON.stringify(next.body), { status: next.status })
  }) as typeof globalThis.fetch
  return { fetch, sent }
}

const rateLimited = (retryAfterSeconds: number) => ({
  status: 429,
  body: {
    error: {
      code: 'rate_limited',
      message: 'Too many requests in a short time. Wait a moment and try again.',
      requestId: 'r1',
      details: { retryAfterSeconds },
    },
  },
})

describe('the deploy API client', () => {
  it('waits out a rate-limited refusal for as long as the API asks (up to its one-minute window), then sends again', async () => {
    const { fetch, sent } = answers(rateLimited(45), rateLimited(2), { status: 200, body: state })
    const waits: number[] = []
    const lines: string[] = []
    const api = createDeployApi({
      apiUrl: 'http://api.test',
      token: 't',
      fetch,
      sleep: async (ms) => void waits.push(ms),
      log: (line) => lines.push(line),
    })
    await expect(api.state('billing')).resolves.toMatchObject({ remote: 'billing' })
    expect(sent).toHaveLength(3)
    expect(waits).toEqual([45000, 2000])
    expect(lines[0]).toMatch(/wait 45 s \(too many requests\)/)
  })

  it('gives up after three waits, or at once when the wait asked for is long', async () => {
    const sleep = async () => {}
    const log = () => {}
    const many = answers(rateLimited(1), rateLimited(1), rateLimited(1), rateLimited(1))
    const api = createDeployApi({
      apiUrl: 'http://api.test',
      token: 't',
      fetch: many.fetch,
      sleep,
      log,
    })
    const error = await api.state('billing').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DeployApiError)
    expect(error).toMatchObject({ code: 'rate_limited', status: 429 })
    expect(many.sent).toHaveLength(4)

    const long = answers(rateLimited(600))
    const patient = createDeployApi({
      apiUrl: 'http://api.test',
      token: 't',
      fetch: long.fetch,
      sleep,
      log,
    })
    await expect(patient.state('billing')).rejects.toMatchObject({ code: 'rate_limited' })
    expect(long.sent).toHaveLength(1)
  })
})
