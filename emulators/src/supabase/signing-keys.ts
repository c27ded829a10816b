import { SignJWT, exportJWK, generateKeyPair, importJWK, jwtVerify } from 'jose'
import type { CryptoKey, JWK, JWTPayload } from 'jose'
import type { Sql } from '@tessera/db/sql'
import { emulatorSchema } from './emulator-schema.ts'

/** The stand-in's ES256 signing key; the public half is served as the JWKS. */
export interface SigningKey {
  kid: string
  privateKey: CryptoKey
  publicKey: CryptoKey
  /** As served in `/.well-known/jwks.json`. */
  publicJwk: JWK
}

interface KeyRow {
  kid: string
  private_jwk: JWK
  public_jwk: JWK
}

/** Loads the key pair kept in the database, creating it on first start. */
export async function loadOrCreateSigningKey(sql: Sql): Promise<SigningKey> {
  const existing = await readKey(sql)
  if (existing !== null) return existing
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true })
  const kid = crypto.randomUUID()
  const privateJwk = await exportJWK(privateKey)
  const publicJwk = {
    ...(await exportJWK(publicKey)),
    kid,
    alg: 'ES256',
    use: 'sig',
    key_ops: ['verify'],
  }
  await sql.query(
    `insert into ${emulatorSchema}.signing_keys (kid, private_jwk, public_jwk) values ($1, $2::jsonb, $3::jsonb)
     on conflict do nothing`,
    [kid, JSON.stringify(privateJwk), JSON.stringify(publicJwk)],
  )
  // Another stand-in may have created one at the same moment: everyone uses the oldest.
  const stored = await readKey(sql)
  if (stored === null) throw new Error('The signing key could not be stored.')
  return stored
}

async function readKey(sql: Sql): Promise<SigningKey | null> {
  const { rows } = await sql.query<KeyRow>(
    `select kid, private_jwk, public_jwk from ${emulatorSchema}.signing_keys order by created_at, kid limit 1`,
  )
  const row = rows[0]
  if (row === undefined) return null
  const privateKey = await importJWK(row.private_jwk, 'ES256')
  const publicKey = await importJWK(row.public_jwk, 'ES256')
  if (privateKey instanceof Uint8Array || publicKey instanceof Uint8Array) {
    throw new Error('The stored signing key is not an EC key.')
  }
  return { kid: row.kid, privateKey, publicKey, publicJwk: row.public_jwk }
}

/** Signs claims as GoTrue does: ES256, `kid` and `typ: JWT` in the header. */
export function signJwt(key: SigningKey, claims: JWTPayload): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
    .sign(key.privateKey)
}

/** Verifies signature (ES256 only) and expiry against the stand-in's clock. */
export async function verifyJwt(key: SigningKey, token: string, now: Date): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, key.publicKey, {
    algorithms: ['ES256'],
    currentDate: now,
  })
  return payload
}
