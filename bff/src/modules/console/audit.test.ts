import { describe, expect, it } from 'vitest'
import { auditCsv, beforeAfter, csvField, toAuditEntry } from './audit.ts'
import type { AuditRow } from './audit.ts'

const row = (overrides: Partial<AuditRow>): AuditRow => ({
  id: 7,
  kind: 'promoted',
  remote_name: 'billing',
  version: '1.1.0',
  from_version: '1.0.0',
  percentage: null,
  actor: 'billing CI',
  source: 'token',
  details: {},
  created_at: new Date('2026-11-26T08:00:00Z'),
  ...overrides,
})

describe('the audit log in words', () => {
  it('says what each kind of event changed, before → after', () => {
    expect(beforeAfter(row({}))).toEqual({ before: '1.0.0', after: '1.1.0' })
    expect(
      beforeAfter(row({ kind: 'canary_started', from_version: null, percentage: 20 })),
    ).toEqual({ before: 'no canary', after: '1.1.0 at 20 %' })
    expect(beforeAfter(row({ kind: 'canary_auto_rolled_back', percentage: 5 }))).toEqual({
      before: '1.1.0 at 5 %',
      after: 'no canary',
    })
    expect(beforeAfter(row({ kind: 'promoted', from_version: null }))).toEqual({
      before: 'nothing',
      after: '1.1.0',
    })
    expect(
      beforeAfter(row({ kind: 'token_revoked', version: null, details: { label: 'CI' } })),
    ).toEqual({ before: 'token "CI"', after: 'revoked' })
    expect(
      beforeAfter(
        row({ kind: 'operator_granted', remote_name: null, details: { email: 'a@b.test' } }),
      ),
    ).toEqual({ before: 'a@b.test: no role', after: 'operator' })
  })

  it('keeps a role change’s remote null', () => {
    expect(toAuditEntry(row({ kind: 'operator_revoked', remote_name: null })).remote).toBeNull()
  })
})

describe('the audit CSV', () => {
  it('quotes fields with commas, quotes and line breaks, and defuses formulas', () => {
    expect(csvField('plain')).toBe('plain')
    expect(csvField('a, b')).toBe('"a, b"')
    expect(csvField('say "hi"')).toBe('"say ""hi"""')
    expect(csvField('two\nlines')).toBe('"two\nlines"')
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`)
    expect(csvField(null)).toBe('')
    expect(csvField(12)).toBe('12')
  })

  it('writes a header row, then one CRLF line per entry', () => {
    const csv = auditCsv([toAuditEntry(row({ actor: 'ops, "night"' }))])
    expect(csv.split('\r\n')).toEqual([
      'id,at,kind,remote,actor,source,before,after,details',
      '7,2026-11-26T08:00:00.000Z,promoted,billing,"ops, ""night""",token,1.0.0,1.1.0,{}',
      '',
    ])
  })
})
