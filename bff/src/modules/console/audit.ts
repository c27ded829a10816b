/**
 * The audit log as the console shows it: each registry, token and role event with before → after
 * in words, and the same entries as a CSV file an operator can open in a spreadsheet.
 */
import type { AuditEntry, AuditKind, AuditSource } from '@tessera/contracts'

/** A `remote_deploy_events` row as the audit reads it. */
export interface AuditRow {
  id: number
  kind: AuditKind
  remote_name: string | null
  version: string | null
  from_version: string | null
  percentage: number | null
  actor: string
  source: AuditSource
  details: Record<string, unknown>
  created_at: Date
}

const text = (value: unknown): string | null =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : null

const atPercent = (version: string | null, percentage: unknown): string =>
  version === null
    ? 'no canary'
    : typeof percentage === 'number'
      ? `${version} at ${percentage} %`
      : version

/** What the event changed, in the words the log shows: `1.0.0` → `1.1.0 at 20 %`. */
export function beforeAfter(row: AuditRow): { before: string | null; after: string | null } {
  const { details } = row
  switch (row.kind) {
    case 'published':
      return { before: null, after: row.version }
    case 'relocated':
      return { before: text(details.from), after: text(details.to) }
    case 'promoted':
    case 'rolled_back':
      return { before: row.from_version ?? 'nothing', after: row.version ?? 'nothing' }
    case 'canary_started':
      return {
        before: atPercent(row.from_version, details.previousPercentage),
        after: atPercent(row.version, row.percentage),
      }
    case 'canary_stopped':
    case 'canary_auto_rolled_back':
      return { before: atPercent(row.version, row.percentage), after: 'no canary' }
    case 'token_issued':
      return { before: null, after: `token "${text(details.label) ?? '?'}"` }
    case 'token_revoked':
      return { before: `token "${text(details.label) ?? '?'}"`, after: 'revoked' }
    case 'operator_granted':
      return { before: `${text(details.email) ?? '?'}: no role`, after: 'operator' }
    case 'operator_revoked':
      return { before: `${text(details.email) ?? '?'}: operator`, after: 'no role' }
  }
}

export function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    id: Number(row.id),
    kind: row.kind,
    remote: row.remote_name,
    actor: row.actor,
    source: row.source,
    ...beforeAfter(row),
    details: row.details,
    at: new Date(row.created_at).toISOString(),
  }
}

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes
 * doubled. A field a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets
 * a leading apostrophe, so an actor's label can never become a formula on an operator's machine.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return ''
  let field = String(value)
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(field)) field = `'${field}`
  return /[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field
}

const csvHeader = ['id', 'at', 'kind', 'remote', 'actor', 'source', 'before', 'after', 'details']

/** The entries as a CSV document: a header row, then one row per entry, CRLF line ends. */
export function auditCsv(entries: readonly AuditEntry[]): string {
  const lines = [csvHeader.join(',')]
  for (const entry of entries) {
    lines.push(
      [
        entry.id,
        entry.at,
        entry.kind,
        entry.remote,
        entry.actor,
        entry.source,
        entry.before,
        entry.after,
        JSON.stringify(entry.details),
      ]
        .map(csvField)
        .join(','),
    )
  }
  return `${lines.join('\r\n')}\r\n`
}
