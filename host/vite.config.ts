import path from 'node:path'
import { fileURLToPath } from 'node:url'
import federation from '@originjs/vite-plugin-federation'
import react from '@vitejs/plugin-react'
import type { Plugin as PostcssPlugin } from 'postcss'
import { defineConfig, type Plugin, type ProxyOptions } from 'vite'
import { entryBudgetPlugin } from '@tessera/remote-build/entry-budget'
import { scopeCss } from '@tessera/remote-build/scope-css'
import { readBuildEnv } from './build-env.ts'
import { inlineFavicon } from './inline-favicon.ts'
import { precompress } from './precompress.ts'
import { themeTokensCss } from './src/lib/platform/theme-tokens.ts'

const hostDir = path.dirname(fileURLToPath(import.meta.url))
const env = readBuildEnv(process.env)

/**
 * The JS every cold page fetches from the host before anything shows (its entry, React in it since
 * decision 051), gzipped. Past this a phone's connection needs one more round trip for it
 * (decision 053 has the measurements): what a first page does not show goes in a file of its own
 * (`later`, host/src/lib/later.tsx). The monolith, which bundles the remotes, has no budget.
 */
const ENTRY_BUDGET_KIB = 100

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
 * The host as a federation host. It shares nothing through originjs: its own code imports React
 * like any bundle, and federation.ts puts that React into the share scope the remotes read
 * (decision 051). Workaround 2 of the originjs workarounds for Vite 8 lives here (docs/decisions,
 * reference/federation-facts.md): a host whose remotes are all registered at runtime is not
 * treated as a host (`__rf_placeholder__shareScope is not defined`), so we declare one build-time
 * remote that is never imported; `.invalid` guarantees its URL can never be fetched.
 */
function federationPlugin() {
  return federation({
    name: 'tessera_host',
    remotes: {
      tessera_placeholder: 'https://placeholder.invalid/assets/remoteEntry.js',
    },
  })
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
          federationPlugin(),
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
  },
})
