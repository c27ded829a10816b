// Test support: a bare Hono app with the BFF's error handler, for middleware tests.
import { Hono } from 'hono'
import type { AppEnv } from '../http/app-env.ts'
import { createErrorHandler } from '../http/error-handler.ts'
import { createLogger } from '../platform/logger.ts'
import { requestId } from '../http/middleware/request-id.ts'

export function bareApp() {
  const app = new Hono<AppEnv>()
  app.use(requestId())
  app.onError(createErrorHandler(createLogger({ level: 'silent' })))
  return app
}
