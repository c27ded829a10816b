import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { AppEnv } from '../app-env.ts'
import { createLogger } from '../../platform/logger.ts'
import { accessLog } from './access-log.ts'
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
