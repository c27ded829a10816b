import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  importPKCS8,
  importSPKI,
} from 'jose'
import type { CryptoKey, JWK } from 'jose'

/** The algorithm of every token the BFF gives plugin upstreams. */
export const PLUGIN_JWT_ALG = 'ES256'

/** A public key as `/.well-known/jwks.json` serves it. */
export type PublicJwk = JWK & { kid: string; alg: typeof PLUGIN_JWT_ALG; use: 'sig' }

/** The BFF's key for plugin tokens, and every public key a plugin may verify them with. */
export interface PluginSigningKeys {
  kid: string
  privateKey: CryptoKey
  /** The current key first, then the previous one (during a rotation). */
  jwks: { keys: PublicJwk[] }
}

/** Thrown for a key that is not an ES256 (P-256) key in one of the accepted forms. */
export class PluginKeyError extends Error {
  readonly key: 'private' | 'previous'

  constructor(key: 'private' | 'previous', message: string) {
    super(message)
    this.name = 'PluginKeyError'
    this.key = key
  }
}

/** Env values often carry a PEM's line breaks as `\n`. */
function unescapePem(text: string): string {
  return text.trim().replace(/\\n/g, '\n')
}

function parseJwk(text: string, which: 'private' | 'previous'): JWK {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new PluginKeyError(which, `is neither a PEM nor a JSON Web Key (${String(error)})`)
  }
  const jwk = value as JWK
  if (typeof value !== 'object' || value === null || jwk.kty !== 'EC' || jwk.crv !== 'P-256')
    throw new PluginKeyError(which, 'must be an EC P-256 key (ES256)')
  if (which === 'private' && typeof jwk.d !== 'string')
    throw new PluginKeyError(which, 'is a public JWK: the private one (with "d") is needed')
  return jwk
}

/** The public half of a JWK, with its id (the RFC 7638 thumbprint: the same on every replica). */
async function publicJwkOf(jwk: JWK): Promise<PublicJwk> {
  const { kty, crv, x, y } = jwk
  const publicPart: JWK = { kty, crv, x, y }
  const kid = await calculateJwkThumbprint(publicPart)
  return { ...publicPart, kid, alg: PLUGIN_JWT_ALG, use: 'sig' }
}

async function importKey(text: string, which: 'private' | 'previous'): Promise<JWK> {
  const value = unescapePem(text)
  try {
    if (value.startsWith('-----BEGIN')) {
      const key =
        which === 'private'
          ? await importPKCS8(value, PLUGIN_JWT_ALG, { extractable: true })
          : await importSPKI(value, PLUGIN_JWT_ALG, { extractable: true })
      return await exportJWK(key)
    }
    const jwk = parseJwk(value, which)
    // Imported once to prove the numbers make a key (a typo fails at start, not at first use).
    await importJWK(jwk, PLUGIN_JWT_ALG)
    return jwk
  } catch (error) {
    if (error instanceof PluginKeyError) throw error
    throw new PluginKeyError(
      which,
      `is not an ES256 key: expected a ${which === 'private' ? 'PKCS8 private' : 'SPKI public'} PEM or a JWK (${String(error)})`,
    )
  }
}

/** A new private key as a JWK, for a key file (the local stack). */
export async function generatePrivateJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(PLUGIN_JWT_ALG, { extractable: true })
  return exportJWK(privateKey)
}

/**
 * The signing key from its text (PKCS8 PEM or private JWK), and the previous public key to keep
 * publishing during a rotation; without a private key, one is made for this process only (tests,
 * an app without plugins). Throws `PluginKeyError`.
 */
export async function loadPluginSigningKeys(options: {
  privateKey?: string | undefined
  previousPublicKey?: string | undefined
}): Promise<PluginSigningKeys> {
  const privateJwk =
    options.privateKey === undefined
      ? await generatePrivateJwk()
      : await importKey(options.privateKey, 'private')
  const current = await publicJwkOf(privateJwk)
  const keys = [current]
  if (options.previousPublicKey !== undefined) {
    const previous = await publicJwkOf(await importKey(options.previousPublicKey, 'previous'))
    if (previous.kid !== current.kid) keys.push(previous)
  }
  const { kty, crv, x, y, d } = privateJwk
  const privateKey = (await importJWK({ kty, crv, x, y, d }, PLUGIN_JWT_ALG)) as CryptoKey
  return { kid: current.kid, privateKey, jwks: { keys } }
}
