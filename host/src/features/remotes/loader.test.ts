import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { definePlugin, type RemoteErrorReport, type SnapshotRemote } from '@tessera/contracts'
import { contractMismatchSentence, createRemoteLoader, type LoadOutcome } from './loader.ts'
import { RemoteLoadError, type RemoteEntryRef } from './remote-load-error.ts'

const billing: SnapshotRemote = {
  name: 'billing',
  version: '1.2.0',
  entryUrl: 'http://cdn.test/billing/1.2.0/assets/remoteEntry.js',
  contract: 1,
  basePath: '/billing',
  nav: { label: 'Billing', order: 20 },
  slots: ['header.end'],
  previous: { version: '1.1.0', entryUrl: 'http://cdn.test/billing/1.1.0/assets/remoteEntry.js' },
}

const billingPlugin = (contract = 1) =>
  definePlugin({ name: 'billing', contract, routes: { mount: () => () => undefined } })

/** A load that never settles: what a hung origin looks like from the browser. */
const hang = () => new Promise<never>(() => undefined)

function setup(loadModule: (ref: RemoteEntryRef) => Promise<unknown>) {
  const reports: RemoteErrorReport[] = []
  const calls: string[] = []
  const loader = createRemoteLoader({
    loadModule: (ref) => {
      calls.push(ref.version)
      return loadModule(ref)
    },
    report: (report) => reports.push(report),
    timeoutMs: 8000,
    retryDelayMs: 500,
    log: () => undefined,
  })
  return { loader, reports, calls }
}

/** Resolves once the outcome settles, advancing fake time in small steps up to a deadline. */
async function settle(promise: Promise<LoadOutcome>, deadlineMs = 60_000): Promise<LoadOutcome> {
  let outcome: LoadOutcome | undefined
  void promise.then((value) => {
    outcome = value
  })
  for (let elapsed = 0; outcome === undefined && elapsed <= deadlineMs; elapsed += 100) {
    await vi.advanceTimersByTimeAsync(100)
  }
  if (outcome === undefined)
    throw new Error(`the load did not settle within ${deadlineMs} ms of fake time`)
  return outcome
}

describe('createRemoteLoader', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('loads the snapshot version and reports nothing when it works', async () => {
    const { loader, reports, calls } = setup(async () => billingPlugin())
    const outcome = await settle(loader.load(billing))
    expect(outcome).toMatchObject({ ok: true, version: '1.2.0', fellBack: false })
    expect(calls).toEqual(['1.2.0'])
    expect(reports).toEqual([])
  })

  it('times the attempt that worked: the entry until it is ready, then the exposed module', async () => {
    let now = 1000
    const loader = createRemoteLoader({
      loadModule: async (_ref, entryReady) => {
        now += 40
        entryReady?.()
        now += 15
        return billingPlugin()
      },
      report: () => undefined,
      log: () => undefined,
      now: () => now,
    })
    const outcome = await settle(loader.load(billing))
    expect(outcome).toMatchObject({
      ok: true,
      timing: { startedAt: 1000, entryMs: 40, exposeMs: 15 },
    })
  })

  it("hands the snapshot's preload list to the first attempt with the entry", async () => {
    const refs: RemoteEntryRef[] = []
    const { loader } = setup(async (ref) => {
      refs.push(ref)
      return billingPlugin()
    })
    const preload = ['http://cdn.test/billing/1.2.0/assets/__federation_expose_Plugin-a1.js']
    await settle(loader.load({ ...billing, preload }))
    expect(refs).toEqual([
      { name: 'billing', version: '1.2.0', entryUrl: billing.entryUrl, preload },
    ])
  })

  it('gives up on a hung origin after the timeout instead of spinning forever', async () => {
    const { loader, reports } = setup(hang)
    const pending = loader.load({ ...billing, previous: null })
    let settled = false
    void pending.then(() => {
      settled = true
    })
    await vi.advanceTimersByTimeAsync(7999)
    expect(settled).toBe(false)
    expect(reports).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(reports).toHaveLength(1)
    expect(reports[0]).toMatchObject({ stage: 'entry', version: '1.2.0', fellBack: false })
    expect(reports[0]?.message).toContain('did not load within 8 s')
    const outcome = await settle(pending)
    expect(outcome).toMatchObject({ ok: false, failure: { reason: 'timeout', stage: 'entry' } })
  })

  it('retries once after the backoff, and succeeds when the second try works', async () => {
    let tries = 0
    const { loader, reports, calls } = setup(async () => {
      tries += 1
      if (tries === 1) throw new TypeError('Failed to fetch dynamically imported module')
      return billingPlugin()
    })
    const pending = loader.load(billing)
    await vi.advanceTimersByTimeAsync(0)
    expect(calls).toEqual(['1.2.0'])
    // The retry waits for the backoff: not at 499 ms, at 500 ms.
    await vi.advanceTimersByTimeAsync(499)
    expect(calls).toEqual(['1.2.0'])
    await vi.advanceTimersByTimeAsync(1)
    expect(calls).toEqual(['1.2.0', '1.2.0'])
    const outcome = await settle(pending)
    expect(outcome).toMatchObject({ ok: true, version: '1.2.0', fellBack: false })
    expect(reports).toEqual([
      {
        remote: 'billing',
        version: '1.2.0',
        stage: 'entry',
        message: 'Failed to fetch dynamically imported module',
        fellBack: false,
      },
    ])
  })

  it('falls back in order: current, retry, previous version', async () => {
    const { loader, reports, calls } = setup(async (ref) => {
      if (ref.version === '1.2.0')
        throw new TypeError('Failed to fetch dynamically imported module')
      return billingPlugin()
    })
    const outcome = await settle(loader.load(billing))
    expect(calls).toEqual(['1.2.0', '1.2.0', '1.1.0'])
    expect(outcome).toMatchObject({ ok: true, version: '1.1.0', fellBack: true })
    expect(reports.map((r) => [r.version, r.stage, r.fellBack])).toEqual([
      ['1.2.0', 'entry', false],
      ['1.2.0', 'entry', true],
    ])
  })

  it('ends at the fallback card when the previous version fails too, reporting each failure', async () => {
    const { loader, reports, calls } = setup(hang)
    const outcome = await settle(loader.load(billing))
    expect(calls).toEqual(['1.2.0', '1.2.0', '1.1.0'])
    expect(outcome).toMatchObject({
      ok: false,
      failure: { reason: 'timeout', triedPrevious: true },
    })
    expect(reports.map((r) => [r.version, r.stage, r.fellBack])).toEqual([
      ['1.2.0', 'entry', false],
      ['1.2.0', 'entry', true],
      ['1.1.0', 'entry', true],
    ])
  })

  it('tries only the snapshot version twice when there is no previous version', async () => {
    const { loader, calls } = setup(async () => {
      throw new TypeError('Failed to fetch dynamically imported module')
    })
    const outcome = await settle(loader.load({ ...billing, previous: null }))
    expect(calls).toEqual(['1.2.0', '1.2.0'])
    expect(outcome).toMatchObject({
      ok: false,
      failure: { reason: 'unreachable', triedPrevious: false },
    })
  })

  it('does not retry a module that loaded but is not a plugin, and goes to the previous version', async () => {
    const { loader, reports, calls } = setup(async (ref) =>
      ref.version === '1.2.0' ? { default: 'not a plugin' } : billingPlugin(),
    )
    const outcome = await settle(loader.load(billing))
    expect(calls).toEqual(['1.2.0', '1.1.0'])
    expect(outcome).toMatchObject({ ok: true, version: '1.1.0', fellBack: true })
    expect(reports).toEqual([
      expect.objectContaining({ version: '1.2.0', stage: 'plugin', fellBack: true }),
    ])
  })

  it('keeps the stage a loader error names', async () => {
    const { loader, reports } = setup(async () => {
      throw new RemoteLoadError('plugin', 'invalid', 'Can not find remote module ./plugin')
    })
    await settle(loader.load({ ...billing, previous: null }))
    expect(reports).toEqual([
      expect.objectContaining({ stage: 'plugin', message: 'Can not find remote module ./plugin' }),
    ])
  })

  it('refuses a snapshot entry for another contract major without fetching its code', async () => {
    const { loader, reports, calls } = setup(async () => billingPlugin(2))
    const outcome = await settle(loader.load({ ...billing, contract: 2 }))
    expect(calls).toEqual([])
    const sentence =
      'Billing was built for platform contract 2, but this app speaks contract 1. Its team needs to publish a compatible version.'
    expect(outcome).toEqual({
      ok: false,
      failure: {
        stage: 'contract',
        reason: 'contract',
        message: sentence,
        sentence,
        triedPrevious: false,
      },
    })
    expect(reports).toEqual([
      { remote: 'billing', version: '1.2.0', stage: 'contract', message: sentence, fellBack: true },
    ])
  })

  it('refuses a loaded plugin whose contract major differs, without retrying', async () => {
    const { loader, reports, calls } = setup(async () => billingPlugin(3))
    const outcome = await settle(loader.load(billing))
    expect(calls).toEqual(['1.2.0'])
    expect(outcome).toMatchObject({
      ok: false,
      failure: { stage: 'contract', sentence: contractMismatchSentence('Billing', 3, 1) },
    })
    expect(reports).toEqual([expect.objectContaining({ stage: 'contract', fellBack: true })])
  })

  it('refuses a plugin that calls itself by another name', async () => {
    const { loader } = setup(async () => definePlugin({ name: 'auth', contract: 1 }))
    const outcome = await settle(loader.load({ ...billing, previous: null }))
    expect(outcome).toMatchObject({ ok: false, failure: { stage: 'plugin', reason: 'invalid' } })
  })

  it('shares one load between a route and its slot', async () => {
    const { loader, calls } = setup(async () => billingPlugin())
    const [first, second] = await Promise.all([
      settle(loader.load(billing)),
      settle(loader.load(billing)),
    ])
    expect(calls).toEqual(['1.2.0'])
    expect(first).toBe(second)
    await settle(loader.load(billing))
    expect(calls).toEqual(['1.2.0'])
  })

  it('starts the whole sequence again after a failure, so "Try again" can recover', async () => {
    let up = false
    const { loader, calls } = setup(async () => {
      if (!up) throw new TypeError('Failed to fetch dynamically imported module')
      return billingPlugin()
    })
    const failed = await settle(loader.load({ ...billing, previous: null }))
    expect(failed.ok).toBe(false)
    up = true
    const recovered = await settle(loader.load({ ...billing, previous: null }))
    expect(recovered).toMatchObject({ ok: true, version: '1.2.0' })
    expect(calls).toEqual(['1.2.0', '1.2.0', '1.2.0'])
  })

  it('keeps loading when the reporter throws', async () => {
    const loader = createRemoteLoader({
      loadModule: async () => {
        throw new TypeError('Failed to fetch dynamically imported module')
      },
      report: () => {
        throw new Error('telemetry is down')
      },
      log: () => undefined,
    })
    const outcome = await settle(loader.load({ ...billing, previous: null }))
    expect(outcome.ok).toBe(false)
  })
})
