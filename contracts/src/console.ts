/**
 * The operator console's API (`/api/console/*`): what operators see and steer in the browser.
 * Every route needs a signed-in operator (the `operator` role, held in the database); anyone else
 * gets 403 `forbidden`. The actions take the same bodies as the deploy API (deploy.ts) and answer
 * the same `ChannelChange`; a stale `expectedRevision` is a 409 `conflict` whose `details` say who
 * changed the channel and when (`ConsoleConflictDetails`).
 */
import { z } from 'zod/mini'
import { channelStateSchema, deployEventKinds, type DeployChannel } from './deploy.ts'
import { remoteDescriptorSchema, remoteNameSchema, semverSchema } from './descriptor.ts'
import { emailAddressSchema } from './auth.ts'
import { plainText } from './text.ts'

/**
 * Who a remote is for (the descriptor's `audience`): `everyone` (the default) or `operators`, whose
 * remote is left out of everyone else's registry snapshot (their browsers never fetch its files).
 */
export const remoteAudiences = ['everyone', 'operators'] as const
export type RemoteAudience = (typeof remoteAudiences)[number]

/** How an action reached the registry: a deploy token (CI, the CLI), an operator's session, the BFF. */
export const auditSources = ['token', 'operator', 'monitor', 'cli'] as const
export type AuditSource = (typeof auditSources)[number]

/** Everything the audit log records: the registry's events and what was done to tokens and roles. */
export const auditKinds = [
  ...deployEventKinds,
  'token_issued',
  'token_revoked',
  'operator_granted',
  'operator_revoked',
] as const
export type AuditKind = (typeof auditKinds)[number]

/**
 * How long a version took to show in people's browsers over the window (from the host's load
 * reports): the mean of each stage, and the wait since navigation at the 50th and 95th
 * percentile (a bucket's upper bound; null when above the largest bucket).
 */
export const versionLoadsSchema = z.object({
  count: z.int().check(z.positive()),
  /** Share of loads whose files the page had asked for ahead (its hints, or a prefetch). */
  preloadedShare: z.number().check(z.gte(0), z.lte(1)),
  entryMs: z.int().check(z.nonnegative()),
  exposeMs: z.int().check(z.nonnegative()),
  mountMs: z.int().check(z.nonnegative()),
  readyP50Ms: z.nullable(z.int().check(z.positive())),
  readyP95Ms: z.nullable(z.int().check(z.positive())),
})
export type VersionLoads = z.infer<typeof versionLoadsSchema>

/** One version's live figures over the canary window, from every BFF replica. */
export const versionTrafficSchema = z.object({
  version: semverSchema,
  /** Distinct clients served this version as their canary within the window. */
  servedClients: z.int().check(z.nonnegative()),
  /** Distinct clients that reported an error for it within the window. */
  errorClients: z.int().check(z.nonnegative()),
  /** errorClients ÷ servedClients; 0 when nobody was served. */
  errorRate: z.number().check(z.gte(0)),
  /** Error reports per minute, oldest first, one bucket per minute of the window (sparkline). */
  errorsPerMinute: z.array(z.int().check(z.nonnegative())),
  /** Load timings reported by browsers; null when none came in the window. */
  loads: z.nullable(versionLoadsSchema),
})
export type VersionTraffic = z.infer<typeof versionTrafficSchema>

/** One remote on the console's first page. */
export const consoleRemoteSchema = z.object({
  name: remoteNameSchema,
  stable: channelStateSchema,
  canary: channelStateSchema,
  /** The stable version's descriptor facts, null when nothing is stable yet. */
  contract: z.nullable(z.int().check(z.positive())),
  /** Total bytes of the stable version's files. */
  bytes: z.nullable(z.int().check(z.nonnegative())),
  /** The latest published version: who (token label or operator email) and when. */
  lastPublished: z.nullable(z.object({ version: semverSchema, by: z.string(), at: z.string() })),
  /** Traffic of the versions the channels serve (the canary's, and stable's), over the window. */
  traffic: z.array(versionTrafficSchema),
})
export type ConsoleRemote = z.infer<typeof consoleRemoteSchema>

/** `GET /api/console/remotes`. */
export const consoleRemotesResponseSchema = z.object({
  remotes: z.array(consoleRemoteSchema),
  /** The canary monitor's settings: the window the traffic covers and when it stops a canary. */
  canary: z.object({
    windowSeconds: z.int().check(z.positive()),
    threshold: z.number().check(z.gte(0), z.lte(1)),
    minClients: z.int().check(z.nonnegative()),
  }),
  generatedAt: z.string(),
})
export type ConsoleRemotesResponse = z.infer<typeof consoleRemotesResponseSchema>

/** The checks a build passed when it was published (recorded with the version). */
export const publishCheckSchema = z.object({
  name: z.string(),
  passed: z.boolean(),
  detail: z.nullable(z.string()),
})
export type PublishCheck = z.infer<typeof publishCheckSchema>

/** One published version with everything its descriptor says. */
export const consoleVersionSchema = z.object({
  version: semverSchema,
  descriptor: remoteDescriptorSchema,
  contentSha256: z.string(),
  /** Total bytes of its files. */
  bytes: z.int().check(z.nonnegative()),
  registeredAt: z.string(),
  /** A token label or an operator's email. */
  registeredBy: z.nullable(z.string()),
  lastStableAt: z.nullable(z.string()),
  withdrawnAt: z.nullable(z.string()),
  withdrawnReason: z.nullable(z.string()),
  checks: z.array(publishCheckSchema),
})
export type ConsoleVersion = z.infer<typeof consoleVersionSchema>

/** `GET /api/console/remotes/:name`: the remote, every version (newest first), its audit. */
export const consoleRemoteDetailSchema = z.object({
  remote: consoleRemoteSchema,
  previousGood: z.nullable(semverSchema),
  versions: z.array(consoleVersionSchema),
})
export type ConsoleRemoteDetail = z.infer<typeof consoleRemoteDetailSchema>

/**
 * The `details` of a console action's 409 `conflict`: the channel moved since the page read it.
 * The page says "Changed by <by> at <at>; reload" and applies nothing.
 */
export const consoleConflictDetailsSchema = z.object({
  remote: remoteNameSchema,
  channel: z.enum(['stable', 'canary'] satisfies DeployChannel[]),
  expectedRevision: z.int().check(z.nonnegative()),
  revision: z.int().check(z.nonnegative()),
  changedBy: z.nullable(z.string()),
  changedAt: z.nullable(z.string()),
})
export type ConsoleConflictDetails = z.infer<typeof consoleConflictDetailsSchema>

/** One line of the audit log. */
export const auditEntrySchema = z.object({
  id: z.int(),
  kind: z.enum(auditKinds),
  /** The remote it concerns; null for a role change. */
  remote: z.nullable(remoteNameSchema),
  /** Who: a token's label, an operator's email, `canary monitor`, or the CLI's user. */
  actor: z.string(),
  source: z.enum(auditSources),
  /** Before → after, in words the log shows as they are (e.g. `1.0.0` → `1.1.0 at 20 %`). */
  before: z.nullable(z.string()),
  after: z.nullable(z.string()),
  details: z.record(z.string(), z.unknown()),
  at: z.string(),
})
export type AuditEntry = z.infer<typeof auditEntrySchema>

/** `GET /api/console/audit` query: every filter optional; `format=csv` answers text/csv. */
export const auditQuerySchema = z.strictObject({
  remote: z.optional(remoteNameSchema),
  kind: z.optional(z.enum(auditKinds)),
  source: z.optional(z.enum(auditSources)),
  /** A case-insensitive part of the actor. */
  actor: z.optional(z.string().check(z.minLength(1), z.maxLength(100), plainText())),
  /** Entries older than this id (the next page). */
  before: z.optional(z.coerce.number().check(z.int(), z.positive())),
  limit: z.optional(z.coerce.number().check(z.int(), z.gte(1), z.lte(500))),
  format: z.optional(z.enum(['json', 'csv'])),
})
export type AuditQuery = z.infer<typeof auditQuerySchema>

export const auditResponseSchema = z.object({
  entries: z.array(auditEntrySchema),
  /** Pass as `before` for the next page; null on the last one. */
  nextBefore: z.nullable(z.int()),
})
export type AuditResponse = z.infer<typeof auditResponseSchema>

/** A deploy token as the console lists it: everything but the token. */
export const consoleTokenSchema = z.object({
  id: z.string(),
  remote: remoteNameSchema,
  label: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.nullable(z.string()),
  revokedAt: z.nullable(z.string()),
})
export type ConsoleToken = z.infer<typeof consoleTokenSchema>

/** `GET /api/console/tokens`. */
export const consoleTokensResponseSchema = z.object({ tokens: z.array(consoleTokenSchema) })

/** `POST /api/console/tokens`. */
export const issueTokenBodySchema = z.strictObject({
  remote: remoteNameSchema,
  label: z.string().check(z.trim(), z.minLength(1), z.maxLength(80), plainText()),
})
export type IssueTokenBody = z.infer<typeof issueTokenBodySchema>

/** `POST /api/console/tokens/:id/revoke` (no body): the token as it is now, revoked. */
export const revokedTokenResponseSchema = z.object({ token: z.nullable(consoleTokenSchema) })
export type RevokedTokenResponse = z.infer<typeof revokedTokenResponseSchema>

/** The answer to an issue: the only time the token itself is ever shown. */
export const issuedTokenSchema = z.object({ token: z.string(), info: consoleTokenSchema })
export type IssuedToken = z.infer<typeof issuedTokenSchema>

/** What one dependency looks like from the BFF that answered. */
export const healthCheckSchema = z.object({
  name: z.enum(['database', 'supabase', 'stripe', 'model']),
  ok: z.boolean(),
  /** Round-trip time of the probe; null when it failed before answering. */
  latencyMs: z.nullable(z.number().check(z.nonnegative())),
  /** Why it is not ok, in a sentence; null when ok. */
  problem: z.nullable(z.string()),
})
export type HealthCheck = z.infer<typeof healthCheckSchema>

/** A BFF replica as its heartbeat (in PostgreSQL) shows it. */
export const replicaHealthSchema = z.object({
  id: z.string(),
  /** Up when its last heartbeat is recent. */
  up: z.boolean(),
  startedAt: z.string(),
  lastSeenAt: z.string(),
  version: z.string(),
  /** Whether it is the replica that answered this request. */
  self: z.boolean(),
})
export type ReplicaHealth = z.infer<typeof replicaHealthSchema>

/** `GET /api/console/health`. */
export const consoleHealthSchema = z.object({
  replicas: z.array(replicaHealthSchema),
  checks: z.array(healthCheckSchema),
  checkedAt: z.string(),
})
export type ConsoleHealth = z.infer<typeof consoleHealthSchema>

/** `GET /api/console/operators` and the CLI's `list`. */
export const operatorSchema = z.object({
  userId: z.string(),
  email: z.string(),
  grantedAt: z.string(),
  grantedBy: z.string(),
})
export type Operator = z.infer<typeof operatorSchema>

/** `GET /api/console/operators`. */
export const operatorsResponseSchema = z.object({ operators: z.array(operatorSchema) })
export type OperatorsResponse = z.infer<typeof operatorsResponseSchema>

/**
 * `POST /api/console/operators`: grant the role to the account with this email (as
 * `npm run operators -- grant <email>`). The person must have signed up.
 */
export const grantOperatorBodySchema = z.strictObject({
  // Someone else's account: auth.ts's `emailSchema` says "your" when the address is missing.
  email: emailAddressSchema('Enter the email address of the account.'),
})
export type GrantOperatorBody = z.infer<typeof grantOperatorBodySchema>

/**
 * The answer to a grant: the operator, and whether this request made them one (`granted`, 201)
 * or they were one already (`already`, 200: nothing changed).
 */
export const grantedOperatorSchema = z.object({
  operator: operatorSchema,
  outcome: z.enum(['granted', 'already']),
})
export type GrantedOperator = z.infer<typeof grantedOperatorSchema>

/** `POST /api/console/operators/:userId/revoke`'s path: the operator's user id. */
export const operatorIdParamSchema = z.strictObject({
  userId: z.uuid({ error: 'An operator is named by their user id, a UUID.' }),
})

/**
 * `POST /api/console/operators/:userId/revoke` (no body): the operator as they were, now without
 * the role. Revoking yourself while you are the only operator is a 409 `conflict`
 * (`details.reason`: `last_operator`).
 */
export const revokedOperatorSchema = z.object({ operator: operatorSchema })
export type RevokedOperator = z.infer<typeof revokedOperatorSchema>
