import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../app-env.ts'
import type { Logger } from '../../platform/logger.ts'

const inviteToken = /^(\/(?:api|auth)\/invites\/)[^/]+/

/**
 * The path as it may be written down: an invite link's token (the page `/auth/invites/<token>`
 * and its API `/api/invites/<token>`) is a credential, so it is replaced by `…`.
 */
export function loggablePath(path: string): string {
  return path.includes('/invites/') ? path.replace(inviteToken, '$1…') : path
}

/** One JSON line per request: method, path, status, ms, requestId. */
export function accessLog(options: { logger: Logger }): MiddlewareHandler<AppEnv> {
  const { logger } = options
  return async function accessLog(c, next) {
    const started = performance.now()
    await next()
    logger.info('request', {
      method: c.req.method,
      path: loggablePath(c.req.path),
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      requestId: c.get('requestId'),
    })
  }
}
