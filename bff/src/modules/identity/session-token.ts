/** The opaque session cookie: 32 random bytes, base64url (43 characters). */
const tokenPattern = /^[A-Za-z0-9_-]{43}$/

function base64url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

/** A new cookie value; only its hash is stored. */
export function newSessionToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)))
}

/** Whether a cookie value could be one of ours (anything else is not looked up at all). */
export function isSessionToken(value: string): boolean {
  return tokenPattern.test(value)
}

/** sha256 of the cookie value, base64url: what `bff_sessions.token_hash` holds. */
export async function hashSessionToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))
  return base64url(new Uint8Array(digest))
}
