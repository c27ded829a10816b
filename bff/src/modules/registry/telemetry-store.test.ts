import { describe, expect, it } from 'vitest'
import { createTelemetryStore } from './telemetry-store.ts'
import type { RecordedRemoteError } from './telemetry-store.ts'

function report(n: number, overrides: Partial<RecordedRemoteError> = {}): RecordedRemoteError {
  return {
    remote: 'billing',
    version: '1.0.0',
    stage: 'entry',
    message: `failure ${n}`,
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    requestId: `r${n}`,
    ...overrides,
  }
}

describe('createTelemetryStore', () => {
  it('returns what it recorded, oldest first', () => {
    const store = createTelemetryStore()
    store.record(report(1))
    store.record(report(2))
    expect(store.recent().map((entry) => entry.requestId)).toEqual(['r1', 'r2'])
  })

  it('keeps only the newest entries once full', () => {
    const store = createTelemetryStore({ capacity: 3 })
    for (let n = 1; n <= 7; n += 1) store.record(report(n))
    expect(store.recent().map((entry) => entry.requestId)).toEqual(['r5', 'r6', 'r7'])
  })

  it('narrows by time and by remote, for error rates', () => {
    const store = createTelemetryStore()
    store.record(report(1))
    store.record(report(2, { remote: 'auth' }))
    store.record(report(3))
    const since = new Date(Date.UTC(2026, 0, 1, 0, 0, 2)).toISOString()
    expect(store.recent({ since }).map((entry) => entry.requestId)).toEqual(['r2', 'r3'])
    expect(store.recent({ remote: 'billing' }).map((entry) => entry.requestId)).toEqual([
      'r1',
      'r3',
    ])
  })
})
