import { entitlementsOf } from '@tessera/contracts'
import type { Entitlements } from '@tessera/contracts'
import { describe, expect, it, vi } from 'vitest'
import type { ProfileRow } from '../../platform/db/schema.ts'
import { signedInBody } from './identity.ts'
import { createMeBodies } from './me-body.ts'
import type { MeParts } from './me-body.ts'
import { testSession } from '../../testing/sessions.ts'

const session = testSession
const profile: ProfileRow = {
  user_id: 'user-1',
  display_name: 'Ada',
  created_at: new Date(1000),
  updated_at: new Date(2000),
}
const entitlements: Entitlements = entitlementsOf(null)
const workspace = { id: 'w-1', name: 'Ada', kind: 'personal' as const, role: 'owner' as const }
const parts: MeParts = { session, profile, entitlements, roles: [], workspace }

/** What the route wrote before the text was kept: `c.json` of this object. */
const written = (p: MeParts) =>
  JSON.stringify({
    ...signedInBody(p.session, p.profile, p.entitlements),
    roles: p.roles,
    ...(p.workspace === undefined ? {} : { workspace: p.workspace }),
  })

describe('createMeBodies', () => {
  it('writes the JSON c.json wrote for the same parts, with or without a workspace', () => {
    const meBody = createMeBodies()
    expect(meBody(parts)).toBe(written(parts))
    const alone = { ...parts, session: { ...session }, workspace: undefined }
    expect(meBody(alone)).toBe(written(alone))
    expect(JSON.parse(meBody(alone))).not.toHaveProperty('workspace')
  })

  it('answers the same parts with the text it wrote, and any changed part with a new text', () => {
    const meBody = createMeBodies()
    const stringify = vi.spyOn(JSON, 'stringify')
    const first = meBody(parts)
    expect(meBody({ ...parts, roles: [] })).toBe(first)
    // The second answer is the first text: nothing was serialised for it.
    expect(stringify).toHaveBeenCalledTimes(1)
    stringify.mockRestore()
    const renamed = { ...parts, profile: { ...profile, display_name: 'Ada L.' } }
    expect(JSON.parse(meBody(renamed))).toMatchObject({ profile: { displayName: 'Ada L.' } })
    const paying = { ...renamed, entitlements: entitlementsOf({ plan: 'pro', status: 'active' }) }
    expect(meBody(paying)).toBe(written(paying))
    const operator = { ...paying, roles: ['operator' as const] }
    expect(JSON.parse(meBody(operator))).toMatchObject({ roles: ['operator'] })
    const team = { ...operator, workspace: { ...workspace, id: 'w-2', kind: 'team' as const } }
    expect(meBody(team)).toBe(written(team))
    // A session refreshed (a new object in the sessions cache) is written again too.
    const refreshed = { ...team, session: { ...session, recovery: true } }
    expect(JSON.parse(meBody(refreshed))).toMatchObject({ session: { recovery: true } })
  })
})
