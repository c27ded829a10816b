/**
 * Who did something the audit log records: a deploy token (CI, the CLI with a token), an operator
 * signed in to the console, an operator command run on the server (`cli`), or the BFF's canary
 * monitor. Every registry and token action names one, and the event it writes says which.
 */
import type { AuditSource } from '@tessera/contracts'
import type { Deployer } from './tokens.ts'

/** An operator acting in the console (`source: 'operator'`) or through a command (`cli`). */
export interface OperatorActor {
  source: 'operator' | 'cli'
  /** The operator's user id; null for a command run on the server by nobody signed in. */
  userId: string | null
  /** What the log shows: the operator's email, or `cli:<user>`. */
  label: string
}

/** Who moves a channel: a deploy token, or an operator. */
export type DeployActor = Deployer | OperatorActor

/** Everything the audit log can name. */
export type AuditActor = DeployActor | { source: 'monitor' }

/** The columns of a deploy event that say who did it. */
export interface AuditActorFields {
  actor: string
  source: AuditSource
  tokenId: string | null
  operatorId: string | null
}

export function isDeployer(actor: AuditActor): actor is Deployer {
  return 'tokenId' in actor
}

/** The audit columns for `actor`. */
export function auditFieldsOf(actor: AuditActor): AuditActorFields {
  if (isDeployer(actor)) {
    return { actor: actor.label, source: 'token', tokenId: actor.tokenId, operatorId: null }
  }
  if (actor.source === 'monitor') {
    return { actor: 'canary monitor', source: 'monitor', tokenId: null, operatorId: null }
  }
  return { actor: actor.label, source: actor.source, tokenId: null, operatorId: actor.userId }
}

/** What a command run on the server is logged as: `cli:<the system user>`. */
export function cliActor(user: string | undefined): OperatorActor {
  const name = (user ?? '').replace(/[^\w.@-]/g, '').slice(0, 60)
  return { source: 'cli', userId: null, label: `cli:${name === '' ? 'unknown' : name}` }
}
