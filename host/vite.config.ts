import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import federation from '@originjs/vite-plugin-federation'
import react from '@vitejs/plugin-react'
import type { Plugin as PostcssPlugin } from 'postcss'
import { defineConfig, type Plugin, type ProxyOptions } from 'vite'
import { entryBudgetPlugin } from '@tessera/remote-build/entry-budget'
import { semverMatcherStubPlugin } from '@tessera/remote-build/host-provided-shared'
import { scopeCss } from '@tessera/remote-build/scope-css'
import { readBuildEnv } from './build-env.ts'
import { inlineFavicon } from './inline-favicon.ts'
import { precompress } from './precompress.ts'
import { themeTokensCss } from './src/lib/platform/theme-tokens.ts'

const hostDir = path.dirname(fileURLToPath(import.meta.url))
const env = readBuildEnv(process.env)
const require = createRequire(import.meta.url)

/** The installed version of a package, read from its package.json. */
function versionOf(pkg: string): string {
  return (require(`${pkg}/package.json`) as { version: string }).version
}

/**
 * The JS every cold page fetches from the host before anything shows (its entry and React),
 * gzipped: 102 KiB when it was set (decision 046), React 67 of it. The monolith, which bundles the
 * remotes, has no budget.
 */
const ENTRY_BUDGET_KIB = 110

const federationModule = path.join(hostDir, 'src/features/remotes/federation.ts')
const monolithModule = path.join(hostDir, 'src/features/remotes/federation-monolith.ts')

/**
 * The monolith build (TESSERA_MONOLITH=1): the same host, with federation.ts replaced by a module
 * that imports the three plugins statically. The benchmark compares it with the federated build.
 */
function monolithFederation(): Plugin {
  return {
    name: 'tessera:monolith-federation',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!importer || !source.endsWith('federation.ts')) return null
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true })
      return resolved?.id === federationModule ? monolithModule : null
    },
  }
}

/**
 * `virtual:tessera-theme-tokens.css`: the theme's token sets as CSS, made from the store's own
 * values (src/lib/platform/theme-tokens.ts), for the page's first paint before any script.
 */
function themeTokensStylesheet(): Plugin {
  const id = 'virtual:tessera-theme-tokens.css'
  return {
    name: 'tessera:theme-tokens',
    resolveId: (source) => (source === id ? `\0${id}` : null),
    load: (resolved) => (resolved === `\0${id}` ? themeTokensCss() : null),
  }
}

/**
 * The BFF puts the route's remote files in place of this comment (bff/src/http/host-page.ts). The
 * monolith loads no remote code, so its page has no place for them.
 */
function withoutRouteHints(): Plugin {
  return {
    name: 'tessera:monolith-without-route-hints',
    transformIndexHtml: (html) => html.replace(/[ \t]*<!-- tessera:route-hints -->\n?/, ''),
  }
}

/**
 * In the monolith each remote's CSS is scoped to its element exactly as its own build would scope
 * it (tooling/remote-build), so both builds render the same page from the same bytes of CSS.
 */
function scopeRemoteCss(): PostcssPlugin {
  return {
    postcssPlugin: 'tessera-monolith-scope-css',
    Once(root, helpers) {
      const file = root.source?.input.file ?? ''
      const remote = /[\\/]remotes[\\/]([a-z][a-z0-9-]*)[\\/]src[\\/]/.exec(file)?.[1]
      if (remote === undefined) return
      const plugin = scopeCss({ remote })
      if ('Once' in plugin && plugin.Once) return plugin.Once(root, helpers)
    },
  }
}

/**
 * The host as a federation host. Two of the three originjs workarounds for Vite 8 live here
 * (docs/decisions, reference/federation-facts.md):
 * - workaround 2: a host whose remotes are all registered at runtime is not treated as a host
 *   (`__rf_placeholder__shareScope is not defined`), so we declare one build-time remote that is
 *   never imported; `.invalid` guarantees its URL can never be fetched.
 * - workaround 3: `react-dom/client` is a sub-path that `react-dom` does not cover; shared on its
 *   own, with an explicit version because react-dom's exports hide `./client/package.json`.
 */
function federationPlugin() {
  return federation({
    name: 'tessera_host',
    remotes: {
      tessera_placeholder: 'https://placeholder.invalid/assets/remoteEntry.js',
    },
    shared: {
      react: { version: versionOf('react') },
      'react-dom': { version: versionOf('react-dom') },
      'react-dom/client': { version: versionOf('react-dom') },
    },
  })
}

/**
 * The shared React chunks are loaded by originjs's `importShared` through dynamic imports, one
 * after another, so the browser only discovers them after the entry has run. Announcing them as
 * modulepreloads lets them download alongside the entry: the federated host then starts as early
 * as a bundle that contains React.
 */
function preloadSharedModules(): Plugin {
  return {
    name: 'tessera:preload-shared-modules',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, { bundle }) {
        if (!bundle) return []
        const closure = (roots: string[]): Set<string> => {
          const files = new Set<string>()
          const visit = (fileName: string): void => {
            const chunk = bundle[fileName]
            if (files.has(fileName) || chunk?.type !== 'chunk') return
            files.add(fileName)
            for (const imported of chunk.imports) visit(imported)
          }
          for (const root of roots) visit(root)
          return files
        }
        const chunks = Object.values(bundle).filter((output) => output.type === 'chunk')
        const isShared = (chunk: { name: string }) => chunk.name.startsWith('__federation_shared_')
        // The page's entry and what it imports statically, Vite already preloads.
        const entry = closure(
          chunks
            .filter((chunk) => chunk.isEntry && !isShared(chunk))
            .map((chunk) => chunk.fileName),
        )
        const shared = closure(chunks.filter(isShared).map((chunk) => chunk.fileName))
        return [...shared]
          .filter((file) => !entry.has(file))
          .sort()
          .map((file) => ({
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: true, href: `/${file}` },
            injectTo: 'head' as const,
          }))
      },
    },
  }
}

/**
 * React, react-dom and its scheduler in one chunk. The host shares them with the remotes, so each
 * is a module originjs loads on its own (`react`, `react-dom`, `react-dom/client`, each a one-line
 * file), and Rolldown split what they import into three chunks and a 90-byte runtime helper: seven
 * files every cold page waited for, four now (decision 044).
 */
const sharedReactChunk = {
  groups: [{ name: 'react', test: /[\\/]node_modules[\\/](react|react-dom|scheduler)[\\/]/ }],
}

/** The dev proxy to the BFF; SSE must flow through unbuffered and uncompressed. */
const apiProxy: ProxyOptions = {
  target: env.bffUrl,
  changeOrigin: false,
  configure(proxy) {
    proxy.on('proxyRes', (response) => {
      if (String(response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        response.headers['cache-control'] = 'no-cache, no-transform'
        response.headers['x-accel-buffering'] = 'no'
      }
    })
  },
}

export default defineConfig({
  root: hostDir,
  plugins: [
    react(),
    themeTokensStylesheet(),
    inlineFavicon(path.join(hostDir, 'public/favicon.svg')),
    ...(env.monolith
      ? [monolithFederation(), withoutRouteHints()]
      : [
          semverMatcherStubPlugin(),
          federationPlugin(),
          preloadSharedModules(),
          entryBudgetPlugin({
            budgetKiB: ENTRY_BUDGET_KIB,
            setting: 'ENTRY_BUDGET_KIB in host/vite.config.ts',
          }),
        ]),
    precompress(),
  ],
  css: env.monolith ? { postcss: { plugins: [scopeRemoteCss()] } } : {},
  define: {
    'import.meta.env.TESSERA_REMOTE_TIMEOUT_MS': JSON.stringify(env.remoteTimeoutMs),
    'import.meta.env.TESSERA_REMOTE_RETRY_DELAY_MS': JSON.stringify(env.remoteRetryDelayMs),
  },
  server: {
    port: env.port,
    strictPort: true,
    proxy: { '/api': apiProxy },
  },
  preview: {
    port: env.port,
    proxy: { '/api': apiProxy },
  },
  build: {
    outDir: env.monolith ? 'dist-monolith' : 'dist',
    emptyOutDir: true,
    sourcemap: false,
    ...(env.monolith ? {} : { rolldownOptions: { output: { codeSplitting: sharedReactChunk } } }),
  },
})
