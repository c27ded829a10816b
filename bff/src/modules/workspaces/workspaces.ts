/**
 * Workspaces, members and invites (docs/decisions/024), built once per app: the store, the
 * service, the invites and their routes. app.ts wires it with a few lines.
 */
import type { Sql } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import type { Env } from '../../platform/env.ts'
import type { Logger } from '../../platform/logger.ts'
import { createResendMail } from '../../platform/mail.ts'
import type { MailSender } from '../../platform/mail.ts'
import type { EventBus } from '../events/event-outbox.ts'
import { createInvites } from './invites.ts'
import type { BeforeInvite } from './invites.ts'
import { createWorkspacesService } from './workspaces-service.ts'
import type { OnMembersChanged } from './workspaces-service.ts'
import type { UsersChanged } from './session-contexts.ts'
import { createWorkspacesStore } from './workspaces-store.ts'
import { invitesRoutes, workspacesRoutes } from './workspaces-routes.ts'

export type { OnMembersChanged } from './workspaces-service.ts'
export type { BeforeInvite } from './invites.ts'

export type WorkspacesEnvSettings = Pick<
  Env,
  'PUBLIC_ORIGIN' | 'MAIL_API_URL' | 'MAIL_API_KEY' | 'MAIL_FROM'
>

export function createWorkspaces(deps: {
  sql: Sql
  bus: EventBus
  clock: Clock
  logger: Logger
  env: WorkspacesEnvSettings
  /** The email port; Resend's API at MAIL_API_URL by default. */
  mail?: MailSender | undefined
  /** The seat-billing seam: runs after each commit that changed a team's member count. */
  onMembersChanged?: OnMembersChanged | undefined
  /** The seat-billing check before an invite is stored (extra seats need confirming). */
  beforeInvite?: BeforeInvite | undefined
  /** Drops what every replica keeps of these users' workspaces (session-contexts.ts). */
  usersChanged?: UsersChanged | undefined
}) {
  const { sql, bus, clock, logger, env } = deps
  const store = createWorkspacesStore(sql)
  const service = createWorkspacesService({
    sql,
    store,
    bus,
    clock,
    logger,
    onMembersChanged: deps.onMembersChanged ?? (() => undefined),
    usersChanged: deps.usersChanged,
  })
  const invites = createInvites({
    sql,
    store,
    service,
    clock,
    logger,
    publicOrigin: env.PUBLIC_ORIGIN,
    beforeInvite: deps.beforeInvite,
    mail:
      deps.mail ??
      createResendMail({ apiUrl: env.MAIL_API_URL, apiKey: env.MAIL_API_KEY, from: env.MAIL_FROM }),
  })
  return {
    service,
    invites,
    routes: () => workspacesRoutes({ service, invites }),
    inviteRoutes: () => invitesRoutes({ invites }),
  }
}
