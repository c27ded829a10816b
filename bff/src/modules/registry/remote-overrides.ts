import { plainText, remoteNameSchema } from '@tessera/contracts'
import type { RegistrySnapshot, SnapshotRemote } from '@tessera/contracts'
import type { Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import { z } from 'zod/mini'
import type { AppEnv } from '../../http/app-env.ts'
import type { RequestSnapshots } from './registry-viewer.ts'

/** The cookie holding this browser's overrides (`__Host-` prefixed over https). */
export const OVERRIDE_COOKIE = 'tessera_overrides'

/**
 * The version an overridden remote reports: the BFF cannot know what a dev server or a preview
 * build is, and a distinct version keeps its errors out of any canary's or stable's figures.
 */
export const OVERRIDE_VERSION = '0.0.0-override'

/** Overrides end on their own after a working day, so a forgotten one does not linger for weeks. */
export const OVERRIDE_MAX_AGE_SECONDS = 12 * 3600

/** `POST /api/remotes/overrides`: point one remote at another entry for this browser. */
export const overrideBodySchema = z.strictObject({
  remote: remoteNameSchema,
  entryUrl: z.url({ protocol: /^https?$/ }).check(z.maxLength(500), plainText()),
  /** What the banner calls it (`preview`, `PR 42`); defaults from where it is loaded from. */
  label: z.optional(
    z
      .string()
      .check(
        z.trim(),
        z.minLength(1),
        z.maxLength(40),
        z.regex(
          /^[\p{L}\p{N} .,_#:/()-]+$/u,
          'must be letters, digits, spaces and simple punctuation',
        ),
      ),
  ),
})
export type OverrideBody = z.infer<typeof overrideBodySchema>

/** One override as the cookie keeps it. */
export interface RemoteOverride {
  remote: string
  entryUrl: string
  label: string
}

const cookieSchema = z
  .array(
    z.object({
      remote: remoteNameSchema,
      entryUrl: z.string().check(z.maxLength(500)),
      label: z.string().check(z.minLength(1), z.maxLength(40)),
    }),
  )
  .check(z.maxLength(20))

/** An override as `GET /api/remotes/overrides` describes it. */
export interface OverrideState extends RemoteOverride {
  origin: string
  /** Whether this browser's snapshot uses it now; when not, `problem` says why. */
  applied: boolean
  problem: string | null
}

interface OriginPattern {
  protocol: string
  host: string
  /** `*.example.com`: any subdomain of `host`, not `host` itself. */
  anySubdomain: boolean
  /** `*` for any port; '' for the protocol's default. */
  port: string
}

const defaultPorts: Record<string, string> = { 'http:': '80', 'https:': '443' }

function parsePattern(pattern: string): OriginPattern | null {
  const match = /^(https?):\/\/(\*\.)?(\[::1\]|[a-z0-9.-]+)(?::(\d{1,5}|\*))?$/.exec(pattern)
  if (match === null) return null
  const protocol = `${match[1]}:`
  const port = match[4] ?? ''
  return {
    protocol,
    host: match[3] ?? '',
    anySubdomain: match[2] !== undefined,
    port: port === defaultPorts[protocol] ? '' : port,
  }
}

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]'])

/** Whether a URL is on this computer's loopback interface (the only place plain http is allowed). */
export function isLoopbackUrl(url: URL): boolean {
  return loopbackHosts.has(url.hostname)
}

/** Whether `url`'s origin matches one of the configured patterns. */
export function originAllowed(patterns: readonly string[], url: URL): boolean {
  return patterns.some((text) => {
    const pattern = parsePattern(text)
    if (pattern === null || pattern.protocol !== url.protocol) return false
    const hostMatches = pattern.anySubdomain
      ? url.hostname.endsWith(`.${pattern.host}`)
      : url.hostname === pattern.host
    return hostMatches && (pattern.port === '*' || pattern.port === url.port)
  })
}

export interface RemoteOverrides {
  /** Whether this server allows overrides at all. */
  readonly allowed: boolean
  /** The configured origin patterns (`REMOTE_OVERRIDE_ORIGINS`). */
  readonly origins: readonly string[]
  /** This browser's overrides, as its cookie says (checked only for shape). */
  read(c: Context<AppEnv>): RemoteOverride[]
  /** Stores this browser's overrides (none: the cookie is deleted). */
  write(c: Context<AppEnv>, overrides: readonly RemoteOverride[]): void
  /** The sentence saying why `override` cannot apply to `snapshot`, or null when it can. */
  problem(
    override: Pick<RemoteOverride, 'remote' | 'entryUrl'>,
    snapshot: RegistrySnapshot,
  ): string | null
  /** The label an override gets when none is given. */
  defaultLabel(entryUrl: string): string
  /** `snapshot` with this browser's overrides applied; those that cannot apply become diagnostics. */
  apply(c: Context<AppEnv>, snapshot: RegistrySnapshot): RegistrySnapshot
  /** How `overrides` stand against `snapshot` (what `/api/remotes/overrides` answers). */
  describe(overrides: readonly RemoteOverride[], snapshot: RegistrySnapshot): OverrideState[]
}

/** The entry an override serves: the registry's facts, the override's code, no fallback. */
function overriddenEntry(entry: SnapshotRemote, override: RemoteOverride): SnapshotRemote {
  // Preload hints and the channel describe the registry's build, not the one loaded instead.
  const { preload: _preload, routePreload: _routePreload, channel: _channel, ...facts } = entry
  return {
    ...facts,
    version: OVERRIDE_VERSION,
    entryUrl: override.entryUrl,
    // No silent fallback to the published version: whoever set the override must see it fail.
    previous: null,
    override: { label: override.label },
  }
}

/**
 * Per-browser overrides: a cookie names, per remote, an entry URL to load instead of the
 * registry's. The cookie is only a request: every request re-checks each override against the
 * current configuration and registry, so tightening `REMOTE_OVERRIDE_ORIGINS` or removing a remote
 * ends overrides at once, and a cookie written by other means can load nothing the config forbids.
 */
export function createRemoteOverrides(options: {
  origins: readonly string[]
  /** `__Host-` prefix and `Secure`, as for the session cookie. */
  secureCookies: boolean
}): RemoteOverrides {
  const { origins, secureCookies } = options
  const allowed = origins.length > 0
  const prefix = secureCookies ? ('host' as const) : undefined

  const read = (c: Context<AppEnv>): RemoteOverride[] => {
    if (!allowed) return []
    const raw = getCookie(c, OVERRIDE_COOKIE, prefix)
    if (raw === undefined) return []
    let json: unknown
    try {
      json = JSON.parse(raw)
    } catch {
      // A cookie that is not ours to read is as good as none; the next write replaces it.
      return []
    }
    const parsed = cookieSchema.safeParse(json)
    return parsed.success ? parsed.data : []
  }

  const problem: RemoteOverrides['problem'] = (override, snapshot) => {
    if (!allowed) {
      return 'This server does not allow overrides (its REMOTE_OVERRIDE_ORIGINS is none).'
    }
    if (!snapshot.remotes.some((remote) => remote.name === override.remote)) {
      const names = snapshot.remotes.map((remote) => remote.name).join(', ')
      return `There is no remote named ${override.remote} here${names === '' ? '' : ` (the remotes are ${names})`}.`
    }
    let url: URL
    try {
      url = new URL(override.entryUrl)
    } catch {
      return `${override.entryUrl} is not a URL.`
    }
    if (url.username !== '' || url.password !== '' || url.hash !== '') {
      return 'The entry URL must not carry a user name, password or #fragment.'
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackUrl(url))) {
      return `${url.origin} is not served over https: overrides load over https, or over http only from this computer (localhost).`
    }
    if (!originAllowed(origins, url)) {
      return `${url.origin} is not an origin overrides may load from here (allowed: ${origins.join(', ')}). Ask the operator to add it to REMOTE_OVERRIDE_ORIGINS.`
    }
    return null
  }

  return {
    allowed,
    origins,
    read,
    problem,
    write(c, overrides) {
      if (overrides.length === 0) {
        deleteCookie(c, OVERRIDE_COOKIE, {
          path: '/',
          ...(secureCookies ? { prefix: 'host', secure: true } : {}),
        })
        return
      }
      setCookie(c, OVERRIDE_COOKIE, JSON.stringify(overrides), {
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
        maxAge: OVERRIDE_MAX_AGE_SECONDS,
        ...(secureCookies ? { prefix: 'host', secure: true } : {}),
      })
    },
    defaultLabel(entryUrl) {
      return isLoopbackUrl(new URL(entryUrl)) ? 'local build' : 'preview'
    },
    apply(c, snapshot) {
      const overrides = read(c)
      if (overrides.length === 0) return snapshot
      const diagnostics = [...snapshot.diagnostics]
      let remotes = snapshot.remotes
      for (const override of overrides) {
        const why = problem(override, snapshot)
        if (why !== null) {
          diagnostics.push({
            remote: override.remote,
            message: `This browser’s override of ${override.remote} (${override.entryUrl}) is not applied: ${why}`,
          })
          continue
        }
        remotes = remotes.map((entry) =>
          entry.name === override.remote ? overriddenEntry(entry, override) : entry,
        )
      }
      return { ...snapshot, remotes, diagnostics }
    },
    describe(overrides, snapshot) {
      return overrides.map((override) => {
        const why = problem(override, snapshot)
        // A stored value that is not a URL is shown as it is; `problem` says what is wrong.
        const origin = URL.canParse(override.entryUrl)
          ? new URL(override.entryUrl).origin
          : override.entryUrl
        return { ...override, origin, applied: why === null, problem: why }
      })
    },
  }
}

/**
 * The viewer snapshots with this browser's overrides on top: the one wrapper through which both
 * `GET /api/remotes` and the host page's CSP see them (docs/decisions/009 makes
 * `RequestSnapshots` the only reader of a viewer's snapshot).
 */
export function withRemoteOverrides(
  snapshots: RequestSnapshots,
  overrides: RemoteOverrides,
): RequestSnapshots {
  return {
    subjectOf: (c) => snapshots.subjectOf(c),
    async forRequest(c, options) {
      return overrides.apply(c, await snapshots.forRequest(c, options))
    },
  }
}
