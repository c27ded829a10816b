import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import federation from '@originjs/vite-plugin-federation'
import react from '@vitejs/plugin-react'
import type { UserConfig } from 'vite'
import { pluginApiPath, pluginApiSchema, type SlotName } from '@tessera/contracts'
import { descriptorPlugin } from './descriptor.ts'
import { federationOutputPlugin } from './federation-output.ts'
import { firstLoadChunk } from './first-load-chunk.ts'
import { firstRouteBudgetPlugin } from './first-route-budget.ts'
import { hostProvidedSharedPlugin, NO_LOCAL_COPY } from './host-provided-shared.ts'
import { scopeCss } from './scope-css.ts'

/** Modules every remote takes from the host, so the page holds exactly one React. */
export const sharedSingletons = ['react', 'react-dom', 'react-dom/client'] as const

export interface RemoteBuildOptions {
  /** Federation name; must be the unscoped part of the package name (`billing` for `@tessera/billing`). */
  name: string
  basePath: string
  nav: { label: string; order: number } | null
  slots: SlotName[]
  /**
   * The slots (of `slots`) to fill for signed-in visitors only, where the remote has nothing to
   * show anyone else: a host then loads none of its code for them on a signed-out page.
   */
  signedInSlots?: SlotName[]
  /** Pages visitors may open signed out, under `basePath` (`/plans`); default: none. */
  publicPaths?: string[]
  /**
   * The API reads its pages make as soon as they show for a signed-in visitor, exactly as asked
   * (`/api/assistant/conversations?limit=20`): a host page hints them with the remote's code.
   */
  firstReads?: string[]
  /**
   * The remote's own API, which the BFF serves at `/api/plugins/<name>` from the upstream the
   * operator maps (`PLUGIN_UPSTREAMS`): written to the descriptor, where publish and the registry
   * read it. Absent: the remote has no API.
   */
  api?: { path: string }
  /**
   * Who the remote is for: `everyone` (the default) or `operators`, whose remote only operators'
   * snapshots list (the console). Written to the descriptor.
   */
  audience?: 'everyone' | 'operators'
  /** The remote's folder (holding its package.json): `new URL('.', import.meta.url)` or a path. */
  root: string | URL
  /**
   * The most JS, gzipped, in KiB, its first route may make a cold load fetch (entry, exposed
   * module, the pages it imports lazily: first-route-budget.ts); the build fails over it, listing
   * the biggest modules. Default: `DEFAULT_FIRST_ROUTE_BUDGET_KIB`.
   */
  firstRouteBudgetKiB?: number
}

/** The first-route budget of a remote that sets none: what a form page with React's help needs. */
export const DEFAULT_FIRST_ROUTE_BUDGET_KIB = 40

function toPath(root: string | URL): string {
  if (root instanceof URL) return fileURLToPath(root)
  return root.startsWith('file:') ? fileURLToPath(root) : path.resolve(root)
}

function readVersionedPackage(file: string): { name: string; version: string } {
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'))
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    !('name' in parsed) ||
    !('version' in parsed) ||
    typeof parsed.name !== 'string' ||
    typeof parsed.version !== 'string'
  ) {
    throw new Error(`${file} needs a "name" and a "version"`)
  }
  return { name: parsed.name, version: parsed.version }
}

/** The Vite config of one remote: React, originjs exposing `./plugin`, scoped CSS, descriptor. */
export function defineRemoteConfig(options: RemoteBuildOptions): UserConfig {
  const root = toPath(options.root)
  const packageFile = path.join(root, 'package.json')
  const pkg = readVersionedPackage(packageFile)
  const unscoped = pkg.name.replace(/^@[^/]+\//, '')
  if (unscoped !== options.name) {
    throw new Error(
      `Remote name "${options.name}" does not match its package "${pkg.name}": name the federation remote after the package.`,
    )
  }

  if (options.api !== undefined) {
    const expected = pluginApiPath(options.name)
    if (!pluginApiSchema.safeParse(options.api).success || options.api.path !== expected) {
      throw new Error(
        `Remote "${options.name}" declares its API at ${JSON.stringify(options.api.path)}: a remote's API is served under its own name, so write api: { path: '${expected}' }.`,
      )
    }
  }

  const budget = options.firstRouteBudgetKiB
  if (budget !== undefined && !(Number.isFinite(budget) && budget > 0)) {
    throw new Error(
      `Remote "${options.name}": firstRouteBudgetKiB must be a positive number of KiB, not ${String(budget)}.`,
    )
  }

  // The versions the remote is built and tested against are the ones installed beside it.
  const require = createRequire(packageFile)
  const installedVersion = (pkgName: string): string =>
    readVersionedPackage(require.resolve(`${pkgName}/package.json`)).version
  const reactVersion = installedVersion('react')
  const reactDomVersion = installedVersion('react-dom')
  const sharedVersions: Record<(typeof sharedSingletons)[number], string> = {
    react: reactVersion,
    'react-dom': reactDomVersion,
    'react-dom/client': reactDomVersion,
  }

  const exposedModule = path.join(root, 'src/plugin.tsx')
  // What the exposed module imports statically, in one chunk (first-load-chunk.ts).
  const firstLoad = firstLoadChunk(exposedModule)
  return {
    root,
    // Every URL the build writes is relative to the file that holds it, so the same build works
    // from any `/<name>/<version>/` path on any origin. This is done with `renderBuiltUrl` rather
    // than `base: './'` because originjs takes a './' base literally: remoteEntry.js would import
    // `assets/assets/…` and its CSS loader would only work on URLs that contain a dot.
    experimental: { renderBuiltUrl: () => ({ relative: true }) },
    publicDir: false,
    plugins: [
      react(),
      hostProvidedSharedPlugin(),
      federation({
        name: options.name,
        filename: 'remoteEntry.js',
        // Absolute: originjs resolves a relative path against the process's cwd, and when that
        // is not the remote's folder it silently drops the exposed module's CSS.
        exposes: { './plugin': exposedModule },
        shared: Object.fromEntries(
          sharedSingletons.map((id) => [
            id,
            // `generate: false`: no local fallback, so the remote can only ever run on the host's
            // React (a missing share fails loudly instead of loading a second React). originjs
            // still emits a fallback chunk from `packagePath`: an empty module (see
            // host-provided-shared.ts), and federationOutputPlugin prunes it.
            { version: sharedVersions[id], generate: false, packagePath: NO_LOCAL_COPY },
          ]),
        ),
      }),
      federationOutputPlugin(),
      firstLoad.plugin,
      firstRouteBudgetPlugin({
        name: options.name,
        budgetKiB: options.firstRouteBudgetKiB ?? DEFAULT_FIRST_ROUTE_BUDGET_KIB,
      }),
      descriptorPlugin({
        name: options.name,
        version: pkg.version,
        basePath: options.basePath,
        nav: options.nav,
        slots: options.slots,
        ...(options.signedInSlots ? { signedInSlots: options.signedInSlots } : {}),
        ...(options.publicPaths ? { publicPaths: options.publicPaths } : {}),
        ...(options.firstReads ? { firstReads: options.firstReads } : {}),
        ...(options.api ? { api: { path: options.api.path } } : {}),
        ...(options.audience ? { audience: options.audience } : {}),
        shared: { react: reactVersion, 'react-dom': reactDomVersion },
      }),
    ],
    css: { postcss: { plugins: [scopeCss({ remote: options.name })] } },
    build: {
      outDir: 'dist',
      emptyOutDir: true,
      // Vite 8's default minifier (Oxc) prints strings as template literals, which originjs's CSS
      // placeholder replacement does not match (federation-facts workaround 1).
      minify: 'terser',
      rolldownOptions: {
        // A remote has no page of its own: its entries are the ones originjs emits (remoteEntry.js
        // and the exposed module). Naming src/plugin.tsx here as well made the exposed chunk a
        // re-export facade of it, one more file fetched after the other on every cold load.
        input: [],
        // Terser's timing report is noise on every build; Tessera chose terser on purpose.
        checks: { pluginTimings: false },
        output: { codeSplitting: { groups: [firstLoad.group] } },
      },
    },
  }
}
