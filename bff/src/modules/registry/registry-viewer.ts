import type { RegistrySnapshot } from '@tessera/contracts'
import type { Context } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'
import type { AppEnv } from '../../http/app-env.ts'
import type { RequestAuth } from '../../http/app-env.ts'
import { hasOperatorRemotes, remotesWithCanary } from './registry.ts'
import type { SnapshotReader } from './registry.ts'

/** The cookie that keeps a signed-out visitor in the same canary share across reloads. */
export const VISITOR_COOKIE = 'tessera_visitor'

const visitorId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * A viewer's sticky bucket (0–99) for one remote: the first four bytes of
 * sha256(`<remote>:<subject>`). The remote is part of the input so one person is not in every
 * canary at once; the same subject always lands in the same bucket, so a canary at N % keeps its
 * viewers as N grows.
 */
export async function canaryBucket(subject: string, remote: string): Promise<number> {
  const digest = await crypto.subtle.digest(
    'SHA-256',
    new TextEncoder().encode(`${remote}:${subject}`),
  )
  return new DataView(digest).getUint32(0) % 100
}

export interface RequestSnapshots {
  /**
   * The snapshot for this request's viewer: the one function every reader of the registry for a
   * page goes through (`GET /api/remotes` and the host page's CSP), so a layer added here (say,
   * per-browser overrides) applies to both. Sets the visitor cookie when a canary needs it.
   * `everyCanary` puts the viewer in every running canary without looking them up: what the
   * host page's CSP needs, as it must allow whatever `GET /api/remotes` will then answer.
   * `operator` decides whether remotes for operators are in it without looking the viewer up
   * (the host page's preload hints take `false`: they must never fetch the console's files for
   * a visitor, and no session is read outside /api).
   */
  forRequest(
    c: Context<AppEnv>,
    options?: { everyCanary?: boolean; operator?: boolean },
  ): Promise<RegistrySnapshot>
  /** Who this request's viewer is for canaries (`user:<id>` or `visitor:<id>`), without a new cookie. */
  subjectOf(c: Context<AppEnv>): Promise<string | null>
}

/**
 * Builds snapshots per request. Bucketing needs to know the viewer only while a canary runs, so
 * without one no session is looked up and no cookie is set.
 */
export function createRequestSnapshots(deps: {
  reader: SnapshotReader
  /** `__Host-` prefix and `Secure` for the visitor cookie, as for the session cookie. */
  secureCookies: boolean
  /** Told each time a viewer is served a canary version (the canary monitor counts them). */
  onCanaryServed?: (remote: string, version: string, subject: string) => void | Promise<void>
  /** Whether a user holds the operator role; without it nobody sees remotes for operators. */
  isOperator?: (userId: string) => Promise<boolean>
}): RequestSnapshots {
  const prefix = deps.secureCookies ? ('host' as const) : undefined

  const subjectOf = async (c: Context<AppEnv>): Promise<string | null> => {
    // Sessions are read under /api only; elsewhere the viewer is whoever the cookie says.
    const auth = c.get('auth') as RequestAuth | undefined
    const session = auth === undefined ? null : await auth.current()
    if (session !== null) return `user:${session.userId}`
    const visitor = getCookie(c, VISITOR_COOKIE, prefix)
    return visitor !== undefined && visitorId.test(visitor) ? `visitor:${visitor}` : null
  }

  /** Whether this request's viewer is an operator (a signed-in user holding the role). */
  const operatorOf = async (c: Context<AppEnv>): Promise<boolean> => {
    const auth = c.get('auth') as RequestAuth | undefined
    const session = auth === undefined ? null : await auth.current()
    if (session === null || deps.isOperator === undefined) return false
    return deps.isOperator(session.userId)
  }

  return {
    subjectOf,
    async forRequest(c, options = {}) {
      const content = await deps.reader.content()
      // The role is looked up only when some remote is for operators. The host page's CSP
      // (`everyCanary`, outside /api where no session is read) allows them all: an origin in
      // script-src fetches nothing, and an operator's page must be able to load the console.
      const operator =
        options.operator ??
        (options.everyCanary || !hasOperatorRemotes(content) ? true : await operatorOf(c))
      const withCanary = remotesWithCanary(content)
      if (withCanary.length === 0) return deps.reader.build({ operator }, content)
      if (options.everyCanary) return deps.reader.build({ bucketOf: () => -1, operator }, content)
      let subject = await subjectOf(c)
      if (subject === null) {
        const visitor = crypto.randomUUID()
        setCookie(c, VISITOR_COOKIE, visitor, {
          httpOnly: true,
          sameSite: 'Lax',
          path: '/',
          maxAge: 365 * 24 * 3600,
          ...(deps.secureCookies ? { prefix: 'host', secure: true } : {}),
        })
        subject = `visitor:${visitor}`
      }
      const buckets = new Map<string, number>()
      for (const remote of withCanary) buckets.set(remote, await canaryBucket(subject, remote))
      const snapshot = await deps.reader.build(
        { bucketOf: (remote) => buckets.get(remote) ?? 100, operator },
        content,
      )
      const canaries = snapshot.remotes.filter((remote) => remote.channel === 'canary')
      await Promise.all(
        canaries.map((remote) => deps.onCanaryServed?.(remote.name, remote.version, subject)),
      )
      return snapshot
    },
  }
}
