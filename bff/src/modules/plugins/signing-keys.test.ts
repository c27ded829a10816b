import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { exportJWK, exportSPKI, generateKeyPair, jwtVerify, createLocalJWKSet } from 'jose'
import { entitlementsOf } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { EnvError, loadEnv } from '../../platform/env.ts'
import { loadNodePluginKeys, readOrCreateKeyFile } from './key-file.ts'
import { createPluginTokens } from './plugin-tokens.ts'
import { loadPluginSigningKeys } from './signing-keys.ts'

const entitlements = entitlementsOf(null)

describe('the plugin signing key', () => {
  it('takes a private JWK and publishes only its public half, with a stable kid', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true })
    const jwk = JSON.stringify(await exportJWK(privateKey))
    const first = await loadPluginSigningKeys({ privateKey: jwk })
    const second = await loadPluginSigningKeys({ privateKey: jwk })
    expect(first.kid).toBe(second.kid)
    expect(first.jwks.keys).toHaveLength(1)
    expect(first.jwks.keys[0]).not.toHaveProperty('d')
    expect(first.jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' })
  })

  it('refuses a key that is not ES256, naming the setting', async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true })
    const env = loadEnv({ PLUGIN_JWT_PRIVATE_KEY: JSON.stringify(await exportJWK(privateKey)) })
    await expect(loadNodePluginKeys(env)).rejects.toThrow(EnvError)
    await expect(loadNodePluginKeys(env)).rejects.toThrow(/PLUGIN_JWT_PRIVATE_KEY/)
    const rsa = await generateKeyPair('RS256', { extractable: true })
    const previous = loadEnv({ PLUGIN_JWT_PREVIOUS_PUBLIC_KEY: await exportSPKI(rsa.publicKey) })
    await expect(loadNodePluginKeys(previous)).rejects.toThrow(/PLUGIN_JWT_PREVIOUS_PUBLIC_KEY/)
  })

  it('keeps the local stack’s key in its file across restarts, readable by its owner only', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'tessera-plugin-key-'))
    try {
      const file = path.join(dir, 'nested', 'plugin-jwt-key.json')
      const env = loadEnv({
        PLUGIN_UPSTREAMS: 'notes=http://127.0.0.1:9101',
        PLUGIN_JWT_KEY_FILE: file,
      })
      // Two processes starting at once end up with one key.
      const [a, b] = await Promise.all([readOrCreateKeyFile(file), readOrCreateKeyFile(file)])
      expect(a).toBe(b)
      const first = await loadNodePluginKeys(env)
      const restarted = await loadNodePluginKeys(env)
      expect(restarted.kid).toBe(first.kid)
      expect((await stat(file)).mode & 0o777).toBe(0o600)
      expect(JSON.parse(await readFile(file, 'utf8'))).toHaveProperty('d')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('plugin tokens', () => {
  it('reuse one token for a few seconds, and sign a new one when the claims change', async () => {
    const keys = await loadPluginSigningKeys({})
    let now = Date.parse('2026-01-01T00:00:00Z')
    const tokens = createPluginTokens({
      keys: async () => keys,
      issuer: 'https://app.example.com',
      clock: { now: () => now },
    })
    const subject = { userId: 'u1', email: 'a@example.com', entitlements }
    const first = await tokens.issue('notes', subject)
    expect(await tokens.issue('notes', subject)).toBe(first)
    expect(await tokens.issue('other', subject)).not.toBe(first)
    expect(
      await tokens.issue('notes', {
        ...subject,
        entitlements: { ...entitlements, plan: 'pro' as const },
      }),
    ).not.toBe(first)
    now += 10_001
    const later = await tokens.issue('notes', subject)
    expect(later).not.toBe(first)
    const { payload } = await jwtVerify(later, createLocalJWKSet(keys.jwks), {
      audience: 'notes',
      issuer: 'https://app.example.com',
      currentDate: new Date(now + 59_000),
    })
    expect(payload.sub).toBe('u1')
    await expect(
      jwtVerify(later, createLocalJWKSet(keys.jwks), {
        audience: 'notes',
        currentDate: new Date(now + 61_000),
      }),
    ).rejects.toThrow(/exp/)
  })
})
