import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { AppEnv } from '../app-env.ts'
import { createLogger } from '../../platform/logger.ts'
import { accessLog, loggablePath } from './access-log.ts'
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
})

describe('loggablePath', () => {
  it('writes an invite link’s token down as … (page and API), and every other path as it is', () => {
    expect(loggablePath('/auth/invites/abc123DEF')).toBe('/auth/invites/…')
    expect(loggablePath('/api/invites/abc123DEF/accept')).toBe('/api/invites/…/accept')
    expect(loggablePath('/api/workspaces/1/invites/2')).toBe('/api/workspaces/1/invites/2')
    expect(loggablePath('/api/me')).toBe('/api/me')
  })
})
