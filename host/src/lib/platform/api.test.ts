import { describe, expect, it } from 'vitest'
import { ApiError } from '@tessera/contracts'
import { createApi } from './api.ts'

type Call = { url: string; init: RequestInit }

function fakeFetch(respond: (call: Call) => Response | Promise<Response>) {
  const calls: Call[] = []
  const fetchImpl = async (url: string, init: RequestInit = {}) => {
    const call = { url, init }
    calls.push(call)
    return respond(call)
  }
  return { calls, fetchImpl }
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  })

describe('createApi', () => {
  it('sends cookies, the CSRF header and a JSON content type for string bodies', async () => {
    const { calls, fetchImpl } = fakeFetch(() => json({ ok: true }))
    const api = createApi({ baseUrl: 'http://app.test', fetchImpl })
    await api.fetch('/api/things', { method: 'POST', body: JSON.stringify({ a: 1 }) })
    const call = calls[0]
    expect(call?.url).toBe('http://app.test/api/things')
    expect(call?.init.credentials).toBe('include')
    const headers = new Headers(call?.init.headers)
    expect(headers.get('x-tessera-csrf')).toBe('1')
    expect(headers.get('content-type')).toBe('application/json')
  })

  it('keeps a content type the caller chose and sets none for non-string bodies', async () => {
    const { calls, fetchImpl } = fakeFetch(() => json({}))
    const api = createApi({ baseUrl: 'http://app.test', fetchImpl })
    await api.fetch('/api/a', {
      method: 'POST',
      body: 'x=1',
      headers: { 'content-type': 'text/plain' },
    })
    await api.fetch('/api/b', { method: 'POST', body: new FormData() })
    expect(new Headers(calls[0]?.init.headers).get('content-type')).toBe('text/plain')
    expect(new Headers(calls[1]?.init.headers).get('content-type')).toBeNull()
    expect(new Headers(calls[1]?.init.headers).get('x-tessera-csrf')).toBe('1')
  })

  it('rebuilds a catalogue error from the response body', async () => {
    const { fetchImpl } = fakeFetch(() =>
      json(
        {
          error: {
            code: 'validation_failed',
            message: 'Check the fields.',
            requestId: 'req-42',
            details: { issues: [{ path: 'email', message: 'must be an email' }] },
          },
        },
        422,
      ),
    )
    const api = createApi({ baseUrl: 'http://app.test', fetchImpl })
    const error = await api.fetch('/api/x').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    const apiError = error as ApiError
    expect(apiError.code).toBe('validation_failed')
    expect(apiError.status).toBe(422)
    expect(apiError.message).toBe('Check the fields.')
    expect(apiError.requestId).toBe('req-42')
    expect(apiError.issues).toEqual([{ path: 'email', message: 'must be an email' }])
  })

  it('maps a non-catalogue failure (a proxy page) to a catalogue code by status', async () => {
    const { fetchImpl } = fakeFetch(
      () =>
        new Response('<html>Bad gateway</html>', {
          status: 502,
          headers: { 'x-request-id': 'edge-1' },
        }),
    )
    const api = createApi({ baseUrl: 'http://app.test', fetchImpl })
    const error = (await api.fetch('/api/x').catch((e: unknown) => e)) as ApiError
    expect(error).toBeInstanceOf(ApiError)
    expect(error.code).toBe('upstream_unavailable')
    expect(error.requestId).toBe('edge-1')
  })

  it('turns a network failure into upstream_unavailable', async () => {
    const api = createApi({
      baseUrl: 'http://app.test',
      fetchImpl: async () => {
        throw new TypeError('Failed to fetch')
      },
    })
    const error = (await api.fetch('/api/x').catch((e: unknown) => e)) as ApiError
    expect(error).toBeInstanceOf(ApiError)
    expect(error.code).toBe('upstream_unavailable')
    expect(error.status).toBe(503)
  })

  it('lets a caller’s abort through unchanged', async () => {
    const api = createApi({
      baseUrl: 'http://app.test',
      fetchImpl: async () => {
        throw new DOMException('The operation was aborted.', 'AbortError')
      },
    })
    const error = await api.fetch('/api/x').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DOMException)
    expect((error as DOMException).name).toBe('AbortError')
  })

  it('tells its request listener of each request as it leaves, with the method', async () => {
    const heard: string[] = []
    const api = createApi({
      baseUrl: 'http://app.test',
      fetchImpl: async () => Response.json({ status: 'signed_out' }),
      onRequest: (path, method) => heard.push(`${method} ${path}`),
    })
    await api.fetch('/api/auth/sign-out', { method: 'post', body: '{"scope":"local"}' })
    await api.fetch('/api/me')
    expect(heard).toEqual(['POST /api/auth/sign-out', 'GET /api/me'])
  })

  it('returns a 2xx response as it is', async () => {
    const { fetchImpl } = fakeFetch(() => json({ hello: 'world' }, 201))
    const api = createApi({ baseUrl: 'http://app.test', fetchImpl })
    const response = await api.fetch('/api/x')
    expect(response.status).toBe(201)
    expect(await response.json()).toEqual({ hello: 'world' })
    expect(api.baseUrl).toBe('http://app.test')
  })

  it('tells its error listener about every catalogue error before throwing it', async () => {
    const heard: Array<[string, string]> = []
    const { fetchImpl } = fakeFetch(() =>
      json({ error: { code: 'session_revoked', message: 'Signed out.', requestId: 'r' } }, 401),
    )
    const api = createApi({
      baseUrl: 'http://app.test',
      fetchImpl,
      onError: (error, path) => heard.push([error.code, path]),
    })
    await expect(api.fetch('/api/billing')).rejects.toMatchObject({ code: 'session_revoked' })
    expect(heard).toEqual([['session_revoked', '/api/billing']])
  })
})
