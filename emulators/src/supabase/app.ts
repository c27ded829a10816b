/**
 * The Supabase stand-in as one Web-standard Hono app: GoTrue under `/auth/v1`, Storage under
 * `/storage/v1` (behind the same API key gate), plus the mailbox app.
 */
import { Hono } from 'hono'
import type { Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { Sql } from '@tessera/db/sql'
import { requireApiKey } from './api-keys.ts'
import { createAuthApp } from './auth-app.ts'
import type { AuthConfig, AuthConfigInput } from './config.ts'
import { resolveAuthConfig } from './config.ts'
import { ensureEmulatorSchema } from './emulator-schema.ts'
import { GoTrueError, respondWithError } from './errors.ts'
import { createMailboxApp } from './mailbox-app.ts'
import { localMailApiKey } from './mailbox-send.ts'
import type { MailboxStore } from './mailbox-store.ts'
import { createMailboxStore } from './mailbox-store.ts'
import { createMailer } from './mailer.ts'
import type { SigningKey } from './signing-keys.ts'
import { loadOrCreateSigningKey } from './signing-keys.ts'
import type { StorageConfig } from './storage-app.ts'
import { createStorageApp, defaultStorageConfig, storagePrefix } from './storage-app.ts'
import { ensureStorageSchema } from './storage-schema.ts'

export interface SupabaseEmulatorOptions extends AuthConfigInput {
  /** The project database; the stand-in keeps its state in its `auth` and `storage` schemas. */
  db: Sql
  /** Called with failures that became a 500, so they are not silent. */
  onUnexpectedError?: (error: unknown) => void
  /** Storage settings (the object size limit); hosted Storage's defaults otherwise. */
  storage?: Partial<StorageConfig>
  /** The bearer key the mailbox's `POST /emails` (Resend's API) accepts; a well-known one by default. */
  mailApiKey?: string
}

export interface SupabaseEmulator {
  /** `/auth/v1/*`, `/storage/v1/*` and `/.well-known/jwks.json`. */
  app: Hono
  /** The mailbox's page and JSON API. */
  mailboxApp: Hono
  config: AuthConfig
  storageConfig: StorageConfig
  key: SigningKey
  mailbox: MailboxStore
}

/** Auth bodies larger than this are refused before parsing (GoTrue's requests are tiny). */
const maxBodyBytes = 1024 * 1024

function handleError(onUnexpectedError: ((error: unknown) => void) | undefined) {
  return (error: Error, c: Context): Response => {
    if (error instanceof GoTrueError) return respondWithError(c, error)
    onUnexpectedError?.(error)
    return respondWithError(
      c,
      new GoTrueError(
        500,
        'unexpected_failure',
        'Unexpected failure, please check server logs for more information',
      ),
    )
  }
}

/** Prepares the stand-in's tables and signing key, then builds its apps. */
export async function createSupabaseEmulator(
  options: SupabaseEmulatorOptions,
): Promise<SupabaseEmulator> {
  const {
    db: sql,
    onUnexpectedError,
    storage: storageInput,
    mailApiKey = localMailApiKey,
    ...configInput
  } = options
  const config = resolveAuthConfig(configInput)
  const storageConfig: StorageConfig = { ...defaultStorageConfig, ...storageInput }
  await ensureEmulatorSchema(sql)
  await ensureStorageSchema(sql)
  const key = await loadOrCreateSigningKey(sql)
  const mailbox = createMailboxStore(sql)
  const mailer = createMailer(config, mailbox)
  const onError = handleError(onUnexpectedError)

  const auth = createAuthApp({ sql, config, key, mailer })
  auth.onError(onError)

  const app = new Hono()
  app.onError(onError)
  // Storage reads its bodies itself, up to its object size limit.
  app.use(
    '/auth/v1/*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) =>
        respondWithError(
          c,
          new GoTrueError(413, 'request_too_large', 'The request body is too large.'),
        ),
    }),
  )
  // The gateway leaves email links (opened in a browser), the health check and the keys open.
  const open = (c: Context) =>
    (c.req.method === 'GET' && c.req.path === '/auth/v1/verify') ||
    c.req.path === '/auth/v1/health' ||
    c.req.path.endsWith('/.well-known/jwks.json')
  app.use('/auth/v1/*', requireApiKey(config.apiKeys, { open }))
  app.get('/.well-known/jwks.json', (c) => c.json({ keys: [key.publicJwk] }))
  app.route('/auth/v1', auth)
  app.route(
    storagePrefix,
    createStorageApp({
      sql,
      apiKeys: config.apiKeys,
      key,
      clock: config.clock,
      config: storageConfig,
      ...(onUnexpectedError === undefined ? {} : { onUnexpectedError }),
    }),
  )
  app.notFound((c) =>
    respondWithError(
      c,
      new GoTrueError(
        404,
        'not_found',
        `The Tessera Supabase stand-in does not provide ${c.req.method} ${c.req.path}.`,
      ),
    ),
  )

  const mailboxApp = createMailboxApp(mailbox, { sql, apiKey: mailApiKey, clock: config.clock })
  mailboxApp.onError((error, c) => {
    onUnexpectedError?.(error)
    return c.json({ error: 'The mailbox failed; see the server log.' }, 500)
  })
  return { app, mailboxApp, config, storageConfig, key, mailbox }
}
