import { ApiError, pluginApiPath, remoteNameSchema } from '@tessera/contracts'
import type { Entitlements } from '@tessera/contracts'
import { Hono } from 'hono'
import type { Context } from 'hono'
import type { AppEnv } from '../../http/app-env.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import type { Logger } from '../../platform/logger.ts'
import { forwardToUpstream, upstreamRequestHeaders } from './plugin-proxy.ts'
import type { UpstreamClient } from './plugin-proxy.ts'
import type { PluginTokens } from './plugin-tokens.ts'
import type { PluginSigningKeys } from './signing-keys.ts'

export interface PluginRoutesDeps {
  /** Each plugin's upstream (`PLUGIN_UPSTREAMS`): an origin, or an origin and a folder. */
  upstreams: Readonly<Record<string, string>>
  tokens: PluginTokens
  /** What the user's plan allows (the same as `/api/me` reports). */
  entitlements(claims: UserClaims): Promise<Entitlements>
  /** How requests reach upstreams (the Node entry's is node-upstream-client.ts). */
  client: UpstreamClient
  timeoutMs: number
  logger: Logger
}

/** A mapped upstream: where it is, and the folder requests must stay in. */
interface Upstream {
  base: string
  basePath: string
}

/** Where a request for `plugin` goes: its upstream, plus the path and query after its prefix. */
function upstreamUrl(c: Context, plugin: string, { base, basePath }: Upstream): URL | null {
  const raw = c.req.url
  const pathAndQuery = raw.slice(raw.indexOf('/', raw.indexOf('//') + 2))
  const prefix = pluginApiPath(plugin)
  if (!pathAndQuery.startsWith(prefix)) return null
  const rest = pathAndQuery.slice(prefix.length)
  if (rest !== '' && !rest.startsWith('/') && !rest.startsWith('?')) return null
  const url = new URL(`${base}${rest}`)
  // A path that climbs out of the upstream's folder (`/..`, `%2e%2e`) names nothing of the plugin.
  if (basePath !== '' && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`))
    return null
  return url
}

/**
 * `/api/plugins/:name/*`: a plugin team's own API, forwarded to the upstream the operator mapped
 * for it, for signed-in users (CSRF and the body limit apply as on every /api route). The upstream
 * gets no cookie and no credential of the browser's, but a short-lived token of the BFF's own key
 * saying who the user is (plugin-tokens.ts), verifiable at `/.well-known/jwks.json`.
 */
export function pluginRoutes(deps: PluginRoutesDeps) {
  const upstreams = new Map<string, Upstream>(
    Object.entries(deps.upstreams).map(([name, base]) => [
      name,
      { base, basePath: new URL(base).pathname.replace(/\/$/, '') },
    ]),
  )
  const forward = async (c: Context<AppEnv>) => {
    const session = await c.var.auth.require()
    const plugin = c.req.param('name') ?? ''
    const upstream = upstreams.get(plugin)
    if (upstream === undefined) {
      throw new ApiError('not_found', {
        message: remoteNameSchema.safeParse(plugin).success
          ? `No service is set up for the plugin "${plugin}" here, so its API cannot be reached. The operator maps it with PLUGIN_UPSTREAMS.`
          : 'There is no plugin by that name.',
        details: { reason: 'plugin_not_mapped' },
      })
    }
    const url = upstreamUrl(c, plugin, upstream)
    if (url === null) throw new ApiError('not_found')
    const method = c.req.method
    const [token, body] = await Promise.all([
      deps.entitlements(session.claims).then((entitlements) =>
        deps.tokens.issue(plugin, {
          userId: session.userId,
          email: session.user.email,
          entitlements,
        }),
      ),
      method === 'GET' || method === 'HEAD'
        ? null
        : c.req.arrayBuffer().then((bytes) => new Uint8Array(bytes)),
    ])
    return forwardToUpstream(
      plugin,
      {
        url,
        method,
        headers: upstreamRequestHeaders(c.req.raw.headers, {
          authorization: `Bearer ${token}`,
          'x-request-id': c.var.requestId,
        }),
        body,
      },
      { client: deps.client, timeoutMs: deps.timeoutMs, logger: deps.logger },
    )
  }
  return new Hono<AppEnv>().all('/:name', forward).all('/:name/*', forward)
}

/** `/.well-known/jwks.json`: the public keys plugin upstreams verify the BFF's tokens with. */
export function jwksRoutes(deps: { keys: () => Promise<PluginSigningKeys> }) {
  return new Hono<AppEnv>().get('/jwks.json', async (c) => {
    const { jwks } = await deps.keys()
    // A few minutes: a rotation publishes the new key before signing with it (docs/plugins.md).
    c.header('cache-control', 'public, max-age=300')
    return c.json(jwks, 200)
  })
}
