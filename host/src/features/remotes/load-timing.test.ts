import type { RemoteLoadTiming } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { createApi } from '../../lib/platform/api.ts'
import { createBffClient } from '../../lib/platform/bff-client.ts'
import { until } from '../../lib/testing/until.ts'
import { createLoadTimingReporter, type MeasuredLoad } from './load-timing.ts'

function manualTimers() {
  const pending = new Map<number, () => void>()
  let next = 0
  return {
    timers: {
      setTimeout(callback: () => void) {
        next += 1
        pending.set(next, callback)
        return next
      },
      clearTimeout(handle: unknown) {
        pending.delete(handle as number)
      },
    },
    fire() {
      const callbacks = [...pending.values()]
      pending.clear()
      for (const callback of callbacks) callback()
    },
    get size() {
      return pending.size
    },
  }
}

const measured: MeasuredLoad = {
  remote: 'billing',
  version: '1.0.0',
  target: 'route',
  entryUrl: 'https://cdn.test/billing/1.0.0/remoteEntry.js',
  startedAt: 400.4,
  entryMs: 120.6,
  exposeMs: 80.2,
  mountMs: 30.5,
  readyAt: 1234.5,
}

function setup(fetchStarts: Record<string, number> = {}) {
  const sent: Array<{ loads: RemoteLoadTiming[] }> = []
  const warnings: string[] = []
  const clock = manualTimers()
  const reporter = createLoadTimingReporter({
    send: async (report) => {
      sent.push(report)
    },
    fetchStartOf: (url) => fetchStarts[url] ?? null,
    timers: clock.timers,
    warn: (message) => warnings.push(message),
  })
  return { reporter, sent, warnings, clock }
}

describe('createLoadTimingReporter', () => {
  it('sends each remote once per page, batched after the last load, in whole milliseconds', () => {
    const { reporter, sent, clock } = setup()
    reporter.record(measured)
    reporter.record({ ...measured, remote: 'auth', target: 'slot', entryUrl: 'x' })
    // The same remote again (its slot after its page): already reported.
    reporter.record({ ...measured, target: 'slot' })
    expect(sent).toEqual([])
    expect(clock.size).toBe(1)
    clock.fire()
    expect(sent).toEqual([
      {
        loads: [
          {
            remote: 'billing',
            version: '1.0.0',
            target: 'route',
            entryMs: 121,
            exposeMs: 80,
            mountMs: 31,
            readyMs: 1235,
            preloaded: false,
          },
          expect.objectContaining({ remote: 'auth', target: 'slot' }),
        ],
      },
    ])
    reporter.flush()
    expect(sent).toHaveLength(1)
  })

  it("reports a remote's page, not its header slot, when the slot showed first", () => {
    const { reporter, sent, clock } = setup()
    // A slow page: the header's slots went after their second, billing's badge showed first.
    reporter.record({ ...measured, target: 'slot', readyAt: 900 })
    reporter.record({ ...measured, remote: 'auth', target: 'slot', entryUrl: 'x' })
    reporter.record({ ...measured, readyAt: 1500 })
    clock.fire()
    expect(sent[0]?.loads.map(({ remote, target, readyMs }) => [remote, target, readyMs])).toEqual([
      ['auth', 'slot', 1235],
      ['billing', 'route', 1500],
    ])
    // Once sent, the page's load of a remote already reported is not sent again.
    reporter.record({ ...measured, remote: 'ai', target: 'slot', entryUrl: 'y' })
    clock.fire()
    reporter.record({ ...measured, remote: 'ai', target: 'route', entryUrl: 'y' })
    clock.fire()
    expect(sent).toHaveLength(2)
    expect(sent[1]?.loads).toEqual([expect.objectContaining({ remote: 'ai', target: 'slot' })])
  })

  it('counts a remote as preloaded when its entry was being fetched before the loader asked', () => {
    const { reporter, sent } = setup({
      [measured.entryUrl]: 12,
      'https://cdn.test/auth/1.0.0/remoteEntry.js': 900,
    })
    reporter.record(measured)
    reporter.record({
      ...measured,
      remote: 'auth',
      entryUrl: 'https://cdn.test/auth/1.0.0/remoteEntry.js',
    })
    reporter.flush()
    expect(sent[0]?.loads.map((load) => [load.remote, load.preloaded])).toEqual([
      ['billing', true],
      ['auth', false],
    ])
  })

  it('sends at once when flushed (the page is hidden), and nothing when nothing loaded', () => {
    const { reporter, sent, clock } = setup()
    reporter.flush()
    expect(sent).toEqual([])
    reporter.record(measured)
    reporter.flush()
    expect(sent).toHaveLength(1)
    expect(clock.size).toBe(0)
  })

  it('warns instead of sending what the contract refuses', () => {
    const { reporter, sent, warnings } = setup()
    reporter.record({ ...measured, version: 'not-a-version' })
    reporter.flush()
    expect(sent).toEqual([])
    expect(warnings).toEqual(['Remote load timings could not be reported'])
  })

  it('posts through the BFF client with keepalive', async () => {
    const requests: Array<{ url: string; init: RequestInit }> = []
    const api = createApi({
      baseUrl: 'http://app.test',
      fetchImpl: async (url, init = {}) => {
        requests.push({ url, init })
        return Response.json({ accepted: true }, { status: 202 })
      },
    })
    const client = createBffClient(api)
    const reporter = createLoadTimingReporter({
      send: (report) => client.reportRemoteLoads(report),
      fetchStartOf: () => null,
    })
    reporter.record(measured)
    reporter.flush()
    await until(() => requests.length === 1)
    expect(requests[0]?.url).toBe('http://app.test/api/telemetry/remote-loads')
    expect(requests[0]?.init.keepalive).toBe(true)
    expect(JSON.parse(String(requests[0]?.init.body))).toMatchObject({
      loads: [{ remote: 'billing', preloaded: false }],
    })
  })
})
