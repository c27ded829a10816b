/**
 * The scaffolded service's JWT verifier (`--with-api`), in the suite: the template's `api/`
 * rendered as `npm run remote -- new notes --with-api` renders it, its own `app.test.ts` run
 * against it (a valid token; a missing, forged, expired one; another plugin's or issuer's), and
 * a token the BFF itself signs verified through the BFF's JWKS, as a team's service does it.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createLocalJWKSet, decodeProtectedHeader, type JWTVerifyGetKey } from 'jose'
import { entitlementsOf } from '@tessera/contracts'
import { createPluginTokens } from '@tessera/bff/modules/plugins/plugin-tokens'
import { loadPluginSigningKeys } from '@tessera/bff/modules/plugins/signing-keys'
import { repoRoot } from '../../../scripts/lib/paths.ts'
import { renderRemote } from '../../../scripts/deploy/remote-new.ts'

// Inside the repository (so `hono`, `jose` and `vitest` resolve as in a remote), in a folder git
// ignores, removed afterwards.
const dir = path.join(repoRoot, '.tessera/remote-template-tests', randomUUID())
const rendered = await renderRemote({ name: 'notes', withApi: true, slot: null }, { orders: [] })
const apiFiles = [...rendered].filter(([file]) => file.startsWith('api/'))
for (const [file, text] of apiFiles) {
  await mkdir(path.dirname(path.join(dir, file)), { recursive: true })
  await writeFile(path.join(dir, file), text)
}
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('the template renders a service with a verifier and its tests', () => {
  it('has the files the tests below run', () => {
    expect(apiFiles.map(([file]) => file)).toEqual(
      expect.arrayContaining(['api/src/app.ts', 'api/src/platform-jwt.ts', 'api/src/app.test.ts']),
    )
  })
})

// The template's own tests, registered here: they run against the rendered files above.
await import(path.join(dir, 'api/src/app.test.ts'))

/** What the rendered `api/src/app.ts` exports. */
interface AppModule {
  createApp(options: { keys: JWTVerifyGetKey; issuer: string }): {
    request(path: string, init?: RequestInit): Response | Promise<Response>
  }
}

describe('the scaffolded service and the BFF’s own tokens', () => {
  it('accepts a token the BFF signed for it, with the keys its JWKS serves, and refuses it for another plugin', async () => {
    const issuer = 'http://localhost:8787'
    const keys = await loadPluginSigningKeys({})
    const tokens = createPluginTokens({ keys: async () => keys, issuer, clock: { now: Date.now } })
    const subject = {
      userId: 'user-7',
      email: 'grace@example.com',
      entitlements: entitlementsOf(null),
    }
    const token = await tokens.issue('notes', subject)
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', kid: keys.kid })
    const { createApp } = (await import(path.join(dir, 'api/src/app.ts'))) as AppModule
    const app = createApp({ keys: createLocalJWKSet(keys.jwks), issuer })
    const hello = (jwt: string) =>
      app.request('/hello', { headers: { authorization: `Bearer ${jwt}` } })
    const answer = await hello(token)
    expect(answer.status).toBe(200)
    expect(await answer.json()).toMatchObject({
      user: { id: 'user-7', email: 'grace@example.com' },
    })
    expect((await hello(await tokens.issue('billing', subject))).status).toBe(401)
  })
})
