import type { AuditKind, AuditSource } from '@tessera/contracts/console'

// Spelled out here rather than imported: the contracts modules that define these build zod
// schemas at load, which would put zod in the bundle. `vocabulary.test.ts` checks they match.

/** The live event the BFF sends when a channel moves (promote, canary, rollback, auto-stop). */
export const REGISTRY_CHANGED = 'registry.changed'
/** The live stream could not be resumed: what the page shows may be stale. */
export const RESYNC = 'resync'

/** Every kind the audit log records, with the words the console shows for it. */
export const auditKindLabels: Record<AuditKind, string> = {
  published: 'Published',
  relocated: 'Relocated',
  promoted: 'Promoted',
  rolled_back: 'Rolled back',
  canary_started: 'Canary started',
  canary_stopped: 'Canary stopped',
  canary_auto_rolled_back: 'Canary stopped automatically',
  token_issued: 'Token issued',
  token_revoked: 'Token revoked',
  operator_granted: 'Operator granted',
  operator_revoked: 'Operator revoked',
}

/** How an action reached the registry, in words. */
export const auditSourceLabels: Record<AuditSource, string> = {
  token: 'Deploy token',
  operator: 'Operator (console)',
  monitor: 'Canary monitor',
  cli: 'Command line',
}

export const auditKinds = Object.keys(auditKindLabels) as AuditKind[]
export const auditSources = Object.keys(auditSourceLabels) as AuditSource[]

/** The dependencies the health page lists, in words. */
export const healthCheckLabels = {
  database: 'Database',
  supabase: 'Supabase (sign-in and storage)',
  stripe: 'Stripe (payments)',
  model: 'Model endpoint',
} as const
