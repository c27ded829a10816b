import { describe, expect, it } from 'vitest'
import {
  createInviteBodySchema,
  inviteTokenParamSchema,
  workspaceIdParamSchema,
  workspaceNameSchema,
} from './workspaces.ts'

describe('workspace shapes', () => {
  it('trims a name and keeps it to one line of 1–80 characters', () => {
    expect(workspaceNameSchema.parse('  Acme  ')).toBe('Acme')
    expect(workspaceNameSchema.safeParse('').success).toBe(false)
    expect(workspaceNameSchema.safeParse(' '.repeat(3)).success).toBe(false)
    expect(workspaceNameSchema.safeParse('x'.repeat(81)).success).toBe(false)
    expect(workspaceNameSchema.safeParse('a\nb').success).toBe(false)
    expect(workspaceNameSchema.safeParse('evil\u202etxt').success).toBe(false)
    expect(workspaceNameSchema.safeParse('nul\u0000').success).toBe(false)
  })

  it('lowercases the invited address and makes a member by default, never an owner', () => {
    expect(createInviteBodySchema.parse({ email: ' Ada@Example.TEST ' })).toEqual({
      email: 'ada@example.test',
      role: 'member',
    })
    expect(createInviteBodySchema.safeParse({ email: 'a@b.test', role: 'owner' }).success).toBe(
      false,
    )
    expect(createInviteBodySchema.safeParse({ email: 'a@b.test', extra: 1 }).success).toBe(false)
  })

  it('takes uuids for ids and 43 base64url characters for an invite token', () => {
    expect(workspaceIdParamSchema.safeParse({ id: 'nope' }).success).toBe(false)
    expect(workspaceIdParamSchema.safeParse({ id: crypto.randomUUID() }).success).toBe(true)
    expect(inviteTokenParamSchema.safeParse({ token: 'a'.repeat(43) }).success).toBe(true)
    expect(inviteTokenParamSchema.safeParse({ token: 'a'.repeat(44) }).success).toBe(false)
    expect(inviteTokenParamSchema.safeParse({ token: `${'a'.repeat(42)}=` }).success).toBe(false)
  })
})
