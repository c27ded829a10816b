import type {
  AuditKind,
  AuditSource,
  PlanId,
  SignInMethod,
  SubscriptionStatus,
} from '@tessera/contracts'
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely'

/** Timestamps: written as Date (or left to the default), read back as Date on both drivers. */
type Timestamp = ColumnType<Date, Date | undefined, Date>

/** The user as Supabase Auth last described it, kept on each session (`bff_sessions.auth_user`). */
export interface AuthUserSnapshot {
  id: string
  email: string
  emailConfirmedAt: string | null
  pendingEmail: string | null
  createdAt: string
  lastSignInAt: string | null
  /** `user_metadata.display_name` from sign-up: the profile's first display name. */
  signUpDisplayName: string | null
}

export interface ProfilesTable {
  user_id: string
  display_name: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface BffSessionsTable {
  id: Generated<string>
  user_id: string
  token_hash: string
  access_token: string | null
  refresh_token: string | null
  access_expires_at: Date
  refresh_lease_until: Date | null
  recovery_until: Date | null
  // Written as JSON text (both drivers send it as-is), read back parsed.
  auth_user: ColumnType<AuthUserSnapshot, string, string>
  device: string
  user_agent: string | null
  ip: string | null
  /** Null for sessions from before it was kept (20261126093000). */
  sign_in_method: ColumnType<
    SignInMethod | null,
    SignInMethod | null | undefined,
    SignInMethod | null
  >
  last_seen_ip: ColumnType<string | null, string | null | undefined, string | null>
  /** The session's current workspace; null: the personal one (20261126111000). */
  workspace_id: ColumnType<string | null, string | null | undefined, string | null>
  created_at: Timestamp
  last_seen_at: Timestamp
  revoked_at: Date | null
}

export interface AssistantConversationsTable {
  id: Generated<string>
  user_id: string
  title: string | null
  created_at: Timestamp
  updated_at: Timestamp
  /** Its workspace; null: the author's personal one (20261126121000). */
  workspace_id: ColumnType<string | null, string | null | undefined, never>
  /** Readable by the other members of its (team) workspace. */
  shared: ColumnType<boolean, boolean | undefined, boolean>
  /** The model its last send used; null before the first (20261126140000). */
  model: ColumnType<string | null, string | null | undefined, string | null>
}

export interface AssistantMessagesTable {
  id: Generated<string>
  // bigint identity: a string on postgres.js, a number on PGlite; the database assigns it.
  seq: ColumnType<string | number, never, never>
  conversation_id: string
  user_id: string
  role: 'user' | 'assistant'
  content: ColumnType<string, string | undefined, string>
  status: 'complete' | 'partial' | 'streaming' | 'failed'
  model: string | null
  prompt_tokens: number | null
  completion_tokens: number | null
  usage_estimated: boolean | null
  error_code: string | null
  created_at: Timestamp
  updated_at: Timestamp
  /** The message this one follows (null: a first message); siblings are versions. */
  parent_id: string | null
  /** The version shown among its siblings. */
  selected: ColumnType<boolean, boolean | undefined, boolean>
}

export interface AssistantUsageTable {
  user_id: string
  period_start: Date
  used_tokens: ColumnType<number, number | undefined, number>
  reserved_tokens: ColumnType<number, number | undefined, number>
  limit_tokens: number
  updated_at: Timestamp
}

export interface AssistantReservationsTable {
  id: string
  user_id: string
  period_start: Date
  tokens: number
  created_at: Timestamp
}

export interface BillingCustomersTable {
  user_id: string
  stripe_customer_id: string | null
  checkout_plan: 'pro' | 'team' | null
  checkout_idempotency_key: string | null
  checkout_started_at: Date | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface BillingSubscriptionsTable {
  stripe_subscription_id: string
  user_id: string
  stripe_customer_id: string
  plan: PlanId
  stripe_price_id: string | null
  status: SubscriptionStatus
  current_period_end: Date | null
  cancel_at: Date | null
  canceled_at: Date | null
  stripe_created_at: Date
  /** The subscription item's quantity: the seats of a per-seat plan, 1 otherwise. */
  quantity: ColumnType<number, number | undefined, number>
  /** The team workspace it pays for (metadata.workspace_id); null: the buyer's personal one. */
  workspace_id: ColumnType<string | null, string | null | undefined, string | null>
  /** Stripe's time of the newest event this row reflects: older events never overwrite it. */
  version_at: Date
  synced_at: Timestamp
  created_at: Timestamp
  updated_at: Timestamp
}

export type BillingEventOutcome =
  | 'received'
  | 'applied'
  | 'refetched'
  | 'unchanged'
  | 'stale'
  | 'ignored'
  | 'unknown_customer'
  | 'invalid'

export interface BillingEventsTable {
  id: string
  type: string
  stripe_created_at: Date
  object_id: string | null
  user_id: string | null
  received_at: Timestamp
  applied_at: Date | null
  outcome: BillingEventOutcome
}

/** The remote registry (`20261122030000_remote_registry.sql`, docs/decisions/009). */
export interface RemotesTable {
  name: string
  created_at: Timestamp
}

export interface DeployTokensTable {
  id: Generated<string>
  remote_name: string
  token_hash: string
  label: string
  created_at: Timestamp
  last_used_at: Date | null
  revoked_at: Date | null
}

export interface RemoteVersionsTable {
  remote_name: string
  version: string
  // Written as JSON text, read back parsed (checked against the descriptor schema on read).
  descriptor: ColumnType<unknown, string, never>
  content_sha256: string
  base_url: string
  registered_at: Timestamp
  registered_by: string | null
  last_stable_at: Date | null
  last_stable_revision: number | null
  withdrawn_at: Date | null
  withdrawn_reason: string | null
  // The checks the build passed at publish (`PublishCheck[]`), written as JSON text.
  checks: ColumnType<unknown, string | undefined, never>
  /** A token's label or an operator's email. */
  published_by: string | null
}

export interface RemoteChannelsTable {
  remote_name: string
  channel: 'stable' | 'canary'
  version: string | null
  percentage: number | null
  revision: Generated<number>
  updated_at: Timestamp
}

export interface RemoteDeployEventsTable {
  id: Generated<number>
  /** Null only for a change of the operator role. */
  remote_name: string | null
  kind: AuditKind
  version: string | null
  from_version: string | null
  percentage: number | null
  actor: string
  token_id: string | null
  source: ColumnType<AuditSource, AuditSource | undefined, never>
  operator_id: string | null
  details: ColumnType<Record<string, unknown>, string | undefined, never>
  created_at: Timestamp
}

/** Who holds the operator role (`20261126090000_operators_and_console.sql`). */
export interface OperatorsTable {
  user_id: string
  granted_at: Timestamp
  granted_by: string
}

/** Remote error reports per version and minute (unlogged; the console's sparklines). */
export interface RemoteErrorMinutesTable {
  remote: string
  version: string
  // bigint: a string on postgres.js, a number on PGlite.
  minute: ColumnType<string | number, number, number>
  reports: number
}

/** BFF processes and their heartbeats (unlogged). */
export interface BffReplicasTable {
  id: string
  started_at: Date
  last_seen_at: Date
  version: string
  stopped_at: Date | null
}

/** The application tables of `supabase/migrations`, for the typed query builder. */
export interface Database {
  profiles: ProfilesTable
  bff_sessions: BffSessionsTable
  remotes: RemotesTable
  deploy_tokens: DeployTokensTable
  remote_versions: RemoteVersionsTable
  remote_channels: RemoteChannelsTable
  remote_deploy_events: RemoteDeployEventsTable
  operators: OperatorsTable
  remote_error_minutes: RemoteErrorMinutesTable
  bff_replicas: BffReplicasTable
  billing_customers: BillingCustomersTable
  billing_subscriptions: BillingSubscriptionsTable
  billing_events: BillingEventsTable
  assistant_conversations: AssistantConversationsTable
  assistant_messages: AssistantMessagesTable
  assistant_usage: AssistantUsageTable
  assistant_reservations: AssistantReservationsTable
}

export type ProfileRow = Selectable<ProfilesTable>
export type BffSessionRow = Selectable<BffSessionsTable>
export type NewBffSession = Insertable<BffSessionsTable>
export type AssistantConversationRow = Selectable<AssistantConversationsTable>
export type AssistantMessageRow = Selectable<AssistantMessagesTable>
export type AssistantUsageRow = Selectable<AssistantUsageTable>
export type BillingCustomerRow = Selectable<BillingCustomersTable>
export type BillingSubscriptionRow = Selectable<BillingSubscriptionsTable>
