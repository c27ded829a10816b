// Test support for the registry and the deploy API: the BFF in-process over a fresh database, the
// registry read from it, and a real storage origin (the cdn stand-in on a free port) serving
// builds written to a temporary folder. Never imported by the app itself.
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { CONTRACT_MAJOR, errorBodySchema } from '@tessera/contracts'
import type { ErrorBody, LiveEvent, RegistrySnapshot, RemoteDescriptor } from '@tessera/contracts'
import { startCdn } from '@tessera/emulators/cdn/node'
import type { Sql } from '@tessera/db/sql'
import { createBffTestDatabase } from './identity.ts'
import { TEST_ORIGIN, createTestApp } from './app.ts'
import { createLogger } from '../platform/logger.ts'
import { publishRegistryChanges } from '../modules/registry/registry-changes.ts'
import { createDbRegistrySource } from '../modules/registry/registry-db-source.ts'
import { createDeployTokens } from '../modules/deploy/tokens.ts'

export interface TestBuildOptions {
  /** Changes the bytes (and so the content digest) of the build. */
  flavour?: string
  contract?: number
  react?: string
  /** Files whose stored bytes differ from what the descriptor says. */
  tamper?: string[]
  /** Files the descriptor names but storage does not hold. */
  omit?: string[]
  /** Where the files go, relative to the storage root (default `<remote>/<version>`). */
  folder?: string
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

export type DeployTestApp = Awaited<ReturnType<typeof startDeployTestApp>>

export async function startDeployTestApp(options: { env?: Record<string, string> } = {}) {
  const db: Sql = await createBffTestDatabase()
  const storageRoot = await mkdtemp(path.join(tmpdir(), 'tessera-deploy-'))
  const cdn = await startCdn({ port: 0, root: storageRoot, allowedOrigins: [TEST_ORIGIN] })
  const registry = createDbRegistrySource({ sql: db, pollMs: 20 })
  const context = createTestApp({
    env: {
      // The cdn's root, and two more folders on it (where a build may move, or be re-uploaded).
      DEPLOY_STORAGE_ORIGINS: `${cdn.url},${cdn.url}/mirror,${cdn.url}/other`,
      // Each test sets the limits it is about; the others must not get in the way.
      DEPLOY_RATE_LIMIT: '100000',
      TELEMETRY_RATE_LIMIT: '100000',
      ...options.env,
    },
    deps: { db, registry },
  })
  const tokens = createDeployTokens({ sql: db, clock: context.clock })
  const events: LiveEvent[] = []
  context.hub.subscribe({ topics: ['broadcast'], onEvent: (event) => events.push(event) })
  // As node.ts does: changes reach open pages as `registry.changed`.
  const stopChanges = await publishRegistryChanges({
    registry,
    hub: context.hub,
    logger: createLogger({ level: 'silent' }),
    clock: context.clock,
  })

  /** Writes a build to storage and returns its descriptor (with the real hashes, unless told). */
  const build = async (
    remote: string,
    version: string,
    buildOptions: TestBuildOptions = {},
  ): Promise<RemoteDescriptor> => {
    const flavour = buildOptions.flavour ?? 'a'
    const contents: Record<string, string> = {
      'assets/remoteEntry.js': `export const remote = '${remote}'; // ${flavour}\n`,
      [`assets/plugin-${flavour}.js`]: `export default { name: '${remote}', flavour: '${flavour}' }\n`,
      [`assets/plugin-${flavour}.css`]: `[data-tessera-remote='${remote}'] p { margin: 0 }\n`,
    }
    const folder = path.join(storageRoot, buildOptions.folder ?? `${remote}/${version}`)
    for (const [file, text] of Object.entries(contents)) {
      if (buildOptions.omit?.includes(file)) continue
      // Same length, other bytes: only the hash can tell.
      const stored = buildOptions.tamper?.includes(file)
        ? text.replace(remote, remote.toUpperCase())
        : text
      await mkdir(path.dirname(path.join(folder, file)), { recursive: true })
      await writeFile(path.join(folder, file), stored)
    }
    return {
      name: remote,
      version,
      contract: buildOptions.contract ?? CONTRACT_MAJOR,
      basePath: `/${remote}`,
      nav: { label: remote, order: 1 },
      slots: [],
      entry: 'assets/remoteEntry.js',
      shared: {
        react: buildOptions.react ?? '19.3.1',
        'react-dom': buildOptions.react ?? '19.3.1',
      },
      files: Object.entries(contents)
        .map(([file, text]) => ({
          path: file,
          sha256: sha256(text),
          bytes: Buffer.byteLength(text),
        }))
        .sort((a, b) => (a.path < b.path ? -1 : 1)),
      preload: [`assets/plugin-${flavour}.js`, `assets/plugin-${flavour}.css`],
      builtAt: new Date().toISOString(),
    }
  }

  /** A deploy API request with a bearer token (no cookie, no CSRF header: none is needed). */
  const deploy = async (
    token: string | null,
    method: 'GET' | 'POST',
    apiPath: string,
    body?: unknown,
  ): Promise<Response> =>
    context.app.request(`/api/deploy${apiPath}`, {
      method,
      headers: {
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })

  /** Builds, uploads and registers `remote@version`; returns the response. */
  const publish = async (
    token: string,
    remote: string,
    version: string,
    buildOptions?: TestBuildOptions,
  ) => {
    const descriptor = await build(remote, version, buildOptions)
    return deploy(token, 'POST', `/remotes/${remote}/versions`, {
      descriptor,
      baseUrl: `${cdn.url}/${buildOptions?.folder ?? `${remote}/${version}`}`,
    })
  }

  /** Publishes and promotes, failing the test if either is refused. */
  const release = async (
    token: string,
    remote: string,
    version: string,
    buildOptions?: TestBuildOptions,
  ) => {
    const published = await publish(token, remote, version, buildOptions)
    if (published.status >= 300) throw new Error(await published.text())
    const promoted = await deploy(token, 'POST', `/remotes/${remote}/promote`, { version })
    if (promoted.status !== 200) throw new Error(await promoted.text())
  }

  return {
    ...context,
    db,
    cdn,
    storageRoot,
    registry,
    tokens,
    /** Every broadcast live event so far (registry.changed among them). */
    events,
    build,
    deploy,
    /** A new token for `remote`. */
    token: async (remote: string) => (await tokens.issue(remote, `${remote} team`)).token,
    baseUrlOf: (remote: string, version: string, folder?: string) =>
      `${cdn.url}/${folder ?? `${remote}/${version}`}`,
    publish,
    release,
    /** A visitor's snapshot; pass the cookie header it got back to stay the same visitor. */
    async snapshot(cookie?: string) {
      const response = await context.app.request('/api/remotes', {
        headers: cookie === undefined ? {} : { cookie },
      })
      const visitor = response.headers
        .getSetCookie()
        .find((line) => line.startsWith('tessera_visitor='))
      return {
        response,
        body: (await response.json()) as RegistrySnapshot,
        cookie: visitor?.split(';')[0] ?? cookie,
      }
    },
    async close() {
      stopChanges()
      await cdn.close()
      await db.close()
      await rm(storageRoot, { recursive: true, force: true })
    },
  }
}

/** The error body of a refusal. */
export async function errorOf(response: Response): Promise<ErrorBody['error']> {
  return errorBodySchema.parse(await response.json()).error
}
