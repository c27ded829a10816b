import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../app-env.ts'
import type { Logger } from '../../platform/logger.ts'

/** One JSON line per request: method, path, status, ms, requestId. */
export function accessLog(options: { logger: Logger }): MiddlewareHandler<AppEnv> {
  const { logger } = options
  return async function accessLog(c, next) {
    const started = performance.now()
    await next()
    logger.info('request', {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      requestId: c.get('requestId'),
    })
  }
}
