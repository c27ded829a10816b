import type { WorkspaceRole } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import {
  inviteRefusal,
  leaveRefusal,
  removeRefusal,
  renameRefusal,
  roleChangeRefusal,
} from './rules.ts'

const team = (role: WorkspaceRole) => ({ kind: 'team' as const, role })
const roles: WorkspaceRole[] = ['owner', 'admin', 'member']
const codeOf = (error: { code: string } | null) => error?.code ?? 'allowed'

describe('who may change whose role', () => {
  it('lets an owner set any role while another owner remains', () => {
    for (const target of roles)
      for (const next of roles)
        expect(codeOf(roleChangeRefusal(team('owner'), target, next, 2)), `${target}→${next}`).toBe(
          'allowed',
        )
  })

  it('lets an admin only make a member an admin (or leave them a member)', () => {
    const allowed: string[] = []
    for (const target of roles)
      for (const next of roles)
        if (roleChangeRefusal(team('admin'), target, next, 2) === null)
          allowed.push(`${target}→${next}`)
    expect(allowed).toEqual(['member→admin', 'member→member'])
  })

  it('lets a member change nothing', () => {
    for (const target of roles)
      for (const next of roles)
        expect(codeOf(roleChangeRefusal(team('member'), target, next, 2))).toBe(
          'workspace_role_required',
        )
  })

  it('never demotes the last owner, and never touches a personal workspace', () => {
    expect(codeOf(roleChangeRefusal(team('owner'), 'owner', 'admin', 1))).toBe('last_owner')
    expect(codeOf(roleChangeRefusal(team('owner'), 'owner', 'owner', 1))).toBe('allowed')
    expect(
      codeOf(roleChangeRefusal({ kind: 'personal', role: 'owner' }, 'owner', 'member', 1)),
    ).toBe('personal_workspace')
  })
})

describe('who may remove, leave, rename and invite', () => {
  it('lets owners remove anyone, admins members only, members nobody', () => {
    const table = roles.map((actor) =>
      roles.map((target) => codeOf(removeRefusal(team(actor), target))),
    )
    expect(table).toEqual([
      ['allowed', 'allowed', 'allowed'],
      ['workspace_role_required', 'workspace_role_required', 'allowed'],
      ['workspace_role_required', 'workspace_role_required', 'workspace_role_required'],
    ])
  })

  it('lets anyone leave but the last owner, and nobody leave a personal workspace', () => {
    expect(codeOf(leaveRefusal(team('member'), 1))).toBe('allowed')
    expect(codeOf(leaveRefusal(team('owner'), 2))).toBe('allowed')
    expect(codeOf(leaveRefusal(team('owner'), 1))).toBe('last_owner')
    expect(codeOf(leaveRefusal({ kind: 'personal', role: 'owner' }, 1))).toBe('personal_workspace')
  })

  it('lets owners and admins rename and invite; members neither; personal has no invites', () => {
    expect(roles.map((role) => codeOf(renameRefusal(team(role))))).toEqual([
      'allowed',
      'allowed',
      'workspace_role_required',
    ])
    expect(roles.map((role) => codeOf(inviteRefusal(team(role))))).toEqual([
      'allowed',
      'allowed',
      'workspace_role_required',
    ])
    expect(codeOf(inviteRefusal({ kind: 'personal', role: 'owner' }))).toBe('personal_workspace')
  })
})
