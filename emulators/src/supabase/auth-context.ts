// What every group of GoTrue routes shares: its dependencies, and how a request names the
// redirect it wants and the client it comes from.
import type { Sql } from '@tessera/db/sql'
import type { Context } from 'hono'
import type { AuthConfig } from './config.ts'
import type { Mailer } from './mailer.ts'
import { resolveRedirect } from './redirects.ts'
import type { SigningKey } from './signing-keys.ts'

export interface AuthDeps {
  sql: Sql
  config: AuthConfig
  key: SigningKey
  mailer: Mailer
}

/** `redirect_to` when the configuration allows it, the site URL otherwise. */
export function redirectFor(c: Context, config: AuthConfig): string {
  return resolveRedirect(c.req.query('redirect_to'), config.siteUrl, config.additionalRedirectUrls)
}

export function userAgent(c: Context): string | undefined {
  return c.req.header('user-agent')
}
