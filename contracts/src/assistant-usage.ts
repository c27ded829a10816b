import { z } from 'zod/mini'

const dayPattern = /^\d{4}-\d{2}-\d{2}$/

/** A calendar day (UTC), `YYYY-MM-DD`. */
const daySchema = z.string({ error: 'A day is written YYYY-MM-DD.' }).check(
  z.regex(dayPattern, 'A day is written YYYY-MM-DD.'),
  z.refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), {
    error: 'This day does not exist.',
  }),
)

/** The longest range the usage report covers at once, in days. */
export const USAGE_REPORT_MAX_DAYS = 366

/**
 * `GET /api/assistant/usage/report?workspace=&from=&to=&format=`: a team's settled tokens per
 * member, model and day (UTC, `from` and `to` included), for its owners and admins; `format=csv`
 * answers text/csv. Without `from` and `to`: the current month so far.
 */
export const usageReportQuerySchema = z
  .object({
    workspace: z.uuid({ error: 'A workspace is named by its id, a UUID.' }),
    from: z.optional(daySchema),
    to: z.optional(daySchema),
    format: z._default(z.enum(['json', 'csv'], { error: 'The format is json or csv.' }), 'json'),
  })
  .check(
    z.refine(
      (query) => query.from === undefined || query.to === undefined || query.from <= query.to,
      {
        error: 'The range starts after it ends: "from" must be on or before "to".',
        path: ['from'],
      },
    ),
    z.refine(
      (query) =>
        query.from === undefined ||
        query.to === undefined ||
        Date.parse(query.to) - Date.parse(query.from) < USAGE_REPORT_MAX_DAYS * 86_400_000,
      { error: `A report covers at most ${USAGE_REPORT_MAX_DAYS} days.`, path: ['to'] },
    ),
  )
export type UsageReportQuery = z.infer<typeof usageReportQuerySchema>

/** One row of the report: a member's settled tokens with one model on one day. */
export const usageReportRowSchema = z.object({
  day: z.string(),
  userId: z.string(),
  model: z.string(),
  tokens: z.int().check(z.nonnegative()),
  answers: z.int().check(z.nonnegative()),
})
export type UsageReportRow = z.infer<typeof usageReportRowSchema>

/** A member as the report lists them: this month's use of the pool and their cap. */
export const usageReportMemberSchema = z.object({
  userId: z.string(),
  email: z.string(),
  displayName: z.nullable(z.string()),
  role: z.enum(['owner', 'admin', 'member']),
  cap: z.nullable(z.int().check(z.nonnegative())),
  /** Tokens settled this month (UTC), and held for answers still streaming. */
  used: z.int().check(z.nonnegative()),
  reserved: z.int().check(z.nonnegative()),
  /** Tokens in the report's range. */
  tokens: z.int().check(z.nonnegative()),
})
export type UsageReportMember = z.infer<typeof usageReportMemberSchema>

/** The JSON answer of the usage report. */
export const usageReportSchema = z.object({
  workspace: z.object({ id: z.string(), name: z.string() }),
  from: z.string(),
  to: z.string(),
  pool: z.object({
    used: z.int().check(z.nonnegative()),
    reserved: z.int().check(z.nonnegative()),
    limit: z.int().check(z.nonnegative()),
  }),
  members: z.array(usageReportMemberSchema),
  rows: z.array(usageReportRowSchema),
})
export type UsageReport = z.infer<typeof usageReportSchema>

/**
 * `PUT /api/workspaces/:id/members/:userId/cap`: the member's monthly tokens from the pool (null:
 * no cap of their own), set by owners and admins.
 */
export const memberTokenCapBodySchema = z.strictObject({
  monthlyTokens: z.nullable(
    z
      .int({ error: 'The cap is a whole number of tokens, or null for no cap.' })
      .check(
        z.gte(0, 'The cap cannot be negative.'),
        z.lte(2_000_000_000, 'The cap can be at most 2,000,000,000 tokens.'),
      ),
  ),
})
export type MemberTokenCapBody = z.infer<typeof memberTokenCapBodySchema>
