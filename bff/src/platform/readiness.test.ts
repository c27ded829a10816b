import { describe, expect, it } from 'vitest'
import { createReadiness, NotReadyError } from './readiness.ts'

describe('createReadiness', () => {
  it('is ready when every registered check resolves, and reports each one', async () => {
    const readiness = createReadiness()
    readiness.register('database', async () => undefined)
    readiness.register('listener', async () => undefined)
    const report = await readiness.check()
    expect(report.ok).toBe(true)
    expect(Object.keys(report.checks)).toEqual(['database', 'listener'])
    expect(report.checks.database).toMatchObject({ ok: true })
  })

  it('names the failed check and says why', async () => {
    const readiness = createReadiness()
    readiness.register('database', async () => undefined)
    readiness.register('listener', async () => {
      throw new NotReadyError('the listen connection is down')
    })
    const report = await readiness.check()
    expect(report.ok).toBe(false)
    expect(report.checks.listener).toMatchObject({
      ok: false,
      error: 'the listen connection is down',
    })
    expect(report.checks.database?.ok).toBe(true)
  })

  it('fails a check that does not answer within the timeout', async () => {
    const readiness = createReadiness({ timeoutMs: 30 })
    readiness.register('database', () => new Promise<void>(() => undefined))
    const report = await readiness.check()
    expect(report.checks.database).toMatchObject({ ok: false, error: 'no answer within 30 ms' })
  })

  it('fails at once, without running the checks, once draining', async () => {
    const readiness = createReadiness()
    let ran = 0
    readiness.register('database', async () => {
      ran += 1
    })
    readiness.drain()
    expect(readiness.draining).toBe(true)
    const report = await readiness.check()
    expect(report).toMatchObject({ ok: false, draining: true, checks: { draining: { ok: false } } })
    expect(ran).toBe(0)
  })

  it('removes a check with the function register returned', async () => {
    const readiness = createReadiness()
    const remove = readiness.register('listener', async () => {
      throw new Error('down')
    })
    remove()
    expect((await readiness.check()).ok).toBe(true)
  })
})
