import { describe, expect, it } from 'vitest'
import { createApi } from '../../lib/platform/api.ts'
import { createBffClient } from '../../lib/platform/bff-client.ts'
import { createRemoteErrorReporter } from './telemetry.ts'
import { until } from '../../lib/testing/until.ts'

function setup(respond: () => Promise<Response>) {
  const requests: Array<{ url: string; init: RequestInit }> = []
  const warnings: string[] = []
  const api = createApi({
    baseUrl: 'http://app.test',
    fetchImpl: (url, init = {}) => {
      requests.push({ url, init })
      return respond()
    },
  })
  const report = createRemoteErrorReporter({
    client: createBffClient(api),
    warn: (message) => warnings.push(message),
  })
  return { report, requests, warnings }
}

describe('createRemoteErrorReporter', () => {
  it('posts the report as JSON with the CSRF header and keepalive', async () => {
    const { report, requests } = setup(async () =>
      Response.json({ accepted: true }, { status: 202 }),
    )
    report({
      remote: 'billing',
      version: '1.0.0',
      stage: 'entry',
      message: 'timed out',
      fellBack: false,
    })
    await until(() => requests.length === 1)
    const request = requests[0]
    expect(request?.url).toBe('http://app.test/api/telemetry/remote-errors')
    expect(request?.init.method).toBe('POST')
    expect(request?.init.keepalive).toBe(true)
    expect(request?.init.credentials).toBe('include')
    const headers = new Headers(request?.init.headers)
    expect(headers.get('x-tessera-csrf')).toBe('1')
    expect(headers.get('content-type')).toBe('application/json')
    expect(JSON.parse(String(request?.init.body))).toEqual({
      remote: 'billing',
      version: '1.0.0',
      stage: 'entry',
      message: 'timed out',
      fellBack: false,
    })
  })

  it('cuts a long message to what the contract accepts', async () => {
    const { report, requests } = setup(async () =>
      Response.json({ accepted: true }, { status: 202 }),
    )
    report({ remote: 'ai', version: '1.0.0', stage: 'mount', message: 'x'.repeat(5000) })
    await until(() => requests.length === 1)
    expect(
      (JSON.parse(String(requests[0]?.init.body)) as { message: string }).message,
    ).toHaveLength(2000)
  })

  it('never throws, even when the BFF refuses or is down', async () => {
    const { report, warnings } = setup(async () => {
      throw new TypeError('Failed to fetch')
    })
    expect(() =>
      report({ remote: 'ai', version: '1.0.0', stage: 'entry', message: 'down' }),
    ).not.toThrow()
    await until(() => warnings.length === 1)
    expect(warnings[0]).toBe('A remote failure could not be reported')
  })

  it('does not send a report that breaks the contract', async () => {
    const { report, requests, warnings } = setup(async () => Response.json({}, { status: 202 }))
    report({ remote: 'Not A Name', version: 'latest', stage: 'entry', message: 'x' })
    expect(warnings).toHaveLength(1)
    expect(requests).toHaveLength(0)
  })
})
