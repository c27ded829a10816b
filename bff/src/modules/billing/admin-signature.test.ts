import { describe, expect, it } from 'vitest'
import { checkAdminSignature, signAdminRequest } from './admin-signature.ts'

const secret = 'whsec_admin_test'
const now = 1_800_000_000

describe('operator request signatures', () => {
  it('accepts a fresh signature over the exact body', async () => {
    const header = await signAdminRequest(secret, '{"dryRun":true}', now)
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/)
    expect(await checkAdminSignature(secret, '{"dryRun":true}', header, now + 10)).toBeNull()
  })

  it('refuses another body, another secret, an old or future time and a bad header', async () => {
    const header = await signAdminRequest(secret, '{}', now)
    expect(await checkAdminSignature(secret, '{"dryRun":false}', header, now)).toMatch(/match/)
    expect(await checkAdminSignature('whsec_other', '{}', header, now)).toMatch(/match/)
    expect(await checkAdminSignature(secret, '{}', header, now + 301)).toMatch(/too old/)
    expect(await checkAdminSignature(secret, '{}', header, now - 301)).toMatch(/too old/)
    expect(await checkAdminSignature(secret, '{}', undefined, now)).toMatch(/missing/)
    expect(await checkAdminSignature(secret, '{}', 't=abc,v1=00', now)).toMatch(/not t=/)
  })
})
