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

/**
 * The fields of a request's line as JSON members, in the order `info` would write them: no
 * object is built for a line written on every request. Strings go through JSON.stringify (a path
 * may hold quotes); a missing request id is left out, as `info` leaves out an undefined field.
 */
export function requestLineMembers(
  method: string,
  path: string,
  status: number,
  ms: number,
  requestId: string | undefined,
): string {
  const id = requestId === undefined ? '' : `,"requestId":${JSON.stringify(requestId)}`
  return `"method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},"ms":${ms}${id}`
}

/** One JSON line per request: method, path, status, ms, requestId. */
export function accessLog(options: { logger: Logger }): MiddlewareHandler<AppEnv> {
  const { logger } = options
  return async function accessLog(c, next) {
    const started = performance.now()
    await next()
    const method = c.req.method
    const path = loggablePath(c.req.path)
    const status = c.res.status
    const ms = Math.round((performance.now() - started) * 10) / 10
    const requestId = c.get('requestId')
    if (logger.infoMembers !== undefined)
      logger.infoMembers('request', requestLineMembers(method, path, status, ms, requestId))
    else logger.info('request', { method, path, status, ms, requestId })
  }
}
