import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { AppEnv } from '../app-env.ts'
import { createLogger } from '../../platform/logger.ts'
import { accessLog, loggablePath, requestLineMembers } from './access-log.ts'
import { requestId } from './request-id.ts'

describe('accessLog', () => {
  it('writes one JSON line per request with method, path, status, ms and request id', async () => {
    const lines: string[] = []
    const logger = createLogger({ level: 'info', write: (line) => lines.push(line) })
    const app = new Hono<AppEnv>()
      .use(requestId())
      .use(accessLog({ logger }))
      .post('/things', (c) => c.text('made', 201))
    const response = await app.request('/things?secret=1', { method: 'POST' })
    expect(lines).toHaveLength(1)
    const line = JSON.parse(lines[0] ?? '') as Record<string, unknown>
    expect(line).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'POST',
      path: '/things',
      status: 201,
      requestId: response.headers.get('x-request-id'),
    })
    expect(typeof line.ms).toBe('number')
  })

  it('writes the same line as the logger’s info would, byte for byte', async () => {
    const fast: string[] = []
    const slow: string[] = []
    const fastLogger = createLogger({
      level: 'info',
      write: (line) => fast.push(line),
      now: () => 0,
    })
    const { infoMembers: _fastPath, ...slowLogger } = createLogger({
      level: 'info',
      write: (line) => slow.push(line),
      now: () => 0,
    })
    for (const logger of [fastLogger, slowLogger]) {
      const app = new Hono<AppEnv>()
        .use(requestId({ generate: () => 'request-0001' }))
        .use(accessLog({ logger }))
        .post('/things', (c) => c.text('made', 201))
      await app.request('/things?secret=1', { method: 'POST' })
      await app.request('/api/invites/secret-token')
    }
    expect(fast).toHaveLength(2)
    // Only the durations may differ between the two.
    const withoutMs = (line: string) => line.replace(/"ms":[^,]+,/, '"ms":0,')
    expect(fast.map(withoutMs)).toEqual(slow.map(withoutMs))
    expect(JSON.parse(fast[1] ?? '')).toMatchObject({
      path: '/api/invites/…',
      status: 404,
      requestId: 'request-0001',
    })
  })

  it('writes a path with quotes and backslashes as JSON, and leaves out a missing request id', () => {
    const members = requestLineMembers('GET', '/a"b\\c', 200, 1.5, undefined)
    expect(JSON.parse(`{${members}}`)).toEqual({
      method: 'GET',
      path: '/a"b\\c',
      status: 200,
      ms: 1.5,
    })
    expect(JSON.parse(`{${requestLineMembers('GET', '/', 200, 0, 'r-1')}}`)).toMatchObject({
      requestId: 'r-1',
    })
  })
})

describe('loggablePath', () => {
  it('writes an invite link’s token down as … (page and API), and every other path as it is', () => {
    expect(loggablePath('/auth/invites/abc123DEF')).toBe('/auth/invites/…')
    expect(loggablePath('/api/invites/abc123DEF/accept')).toBe('/api/invites/…/accept')
    expect(loggablePath('/api/workspaces/1/invites/2')).toBe('/api/workspaces/1/invites/2')
    expect(loggablePath('/api/me')).toBe('/api/me')
  })
})
