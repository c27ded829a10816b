import type { RemoteDescriptor } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { createBuildVerifier } from './verify-build.ts'

const storage = 'https://cdn.example'
const verifier = createBuildVerifier({
  allowedOrigins: [storage, 'https://files.example/remotes'],
  timeoutMs: 1000,
  maxBytes: 1024,
  fetch: () => Promise.reject(new Error('checkLocation never downloads')),
})
const descriptor = { name: 'billing', version: '9.9.9' } as RemoteDescriptor

function refusalOf(baseUrl: string): unknown {
  try {
    verifier.checkLocation(descriptor, baseUrl)
    return null
  } catch (error) {
    return error
  }
}

describe('where a build may be registered from', () => {
  it('takes a build in an allowed folder, or a bare origin’s root or public bucket, under /<name>/<version>', () => {
    for (const baseUrl of [
      `${storage}/billing/9.9.9`,
      `${storage}/billing/9.9.9/`,
      `${storage}/storage/v1/object/public/remotes/billing/9.9.9`,
      'https://files.example/remotes/billing/9.9.9',
    ])
      expect(refusalOf(baseUrl), baseUrl).toBeNull()
  })

  it('refuses a build inside another remote’s folder, though its path ends the same', () => {
    for (const baseUrl of [
      `${storage}/auth/billing/9.9.9`,
      `${storage}/storage/v1/object/public/remotes/auth/billing/9.9.9`,
      `${storage}/x/storage/v1/object/public/remotes/billing/9.9.9`,
      `${storage}/billing/9.9.9/billing/9.9.9`,
      `${storage}/storage/v1/object/public/remotes%2Fauth/billing/9.9.9`,
      `${storage}/xbilling/9.9.9`,
      `${storage}/billing/19.9.9`,
      'https://files.example/billing/9.9.9',
      'https://files.example/remotes/auth/billing/9.9.9',
      'https://files.example/remotes-other/billing/9.9.9',
    ]) {
      expect(refusalOf(baseUrl), baseUrl).toMatchObject({
        code: 'validation_failed',
        details: { issues: [expect.objectContaining({ path: 'baseUrl' })] },
      })
    }
  })

  it('refuses a build on an origin it does not know, naming the origin', () => {
    expect(refusalOf('https://evil.example/billing/9.9.9')).toMatchObject({
      details: {
        issues: [
          expect.objectContaining({
            message: expect.stringContaining(
              'https://evil.example is not a storage origin',
            ) as unknown,
          }),
        ],
      },
    })
  })
})
