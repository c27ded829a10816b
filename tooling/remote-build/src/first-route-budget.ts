import path from 'node:path'
import { gzipSync } from 'node:zlib'
import type { Plugin, Rollup } from 'vite'
import { REMOTE_ENTRY } from './descriptor.ts'
import { exposedClosure } from './exposed-closure.ts'

/** One file of the first route, with its size as a browser downloads it (gzip). */
export interface FirstRouteFile {
  fileName: string
  gzipBytes: number
}

/** One module inside those files, with its size in the bundle (after tree-shaking, unminified). */
export interface FirstRouteModule {
  id: string
  renderedBytes: number
}

export interface FirstRouteJs {
  files: FirstRouteFile[]
  gzipBytes: number
  /** Every module of those files, biggest first. */
  modules: FirstRouteModule[]
}

const isChunk = (output: Rollup.OutputAsset | Rollup.OutputChunk | undefined) =>
  output?.type === 'chunk'

/**
 * The JS a cold load of the remote's first page fetches from it: `remoteEntry.js`, the exposed
 * module with its static imports (the descriptor's `preload`), and what that code imports lazily,
 * one level down, with its static imports (`routePreload`: the route pages a plugin hands the host
 * as `routes: () => import(…)`, and any other lazy part of its first render). What those pages load
 * later, on their own (a form's checks, a dialog), is not part of it.
 */
export function firstRouteJs(bundle: Rollup.OutputBundle): FirstRouteJs {
  const { chunks: exposed, lazy } = exposedClosure(bundle)
  const js = staticJsOf(bundle, [REMOTE_ENTRY, ...exposed, ...lazy.chunks])
  // originjs may emit the entry as an asset (its code written by the plugin, not bundled).
  const entry = bundle[REMOTE_ENTRY]
  if (entry?.type !== 'asset') return js
  const gzipBytes = gzipSync(entry.source).byteLength
  return {
    ...js,
    files: [{ fileName: REMOTE_ENTRY, gzipBytes }, ...js.files],
    gzipBytes: js.gzipBytes + gzipBytes,
  }
}

/** The JS chunks `roots` are and import statically, however deep, with their gzip sizes. */
export function staticJsOf(bundle: Rollup.OutputBundle, roots: readonly string[]): FirstRouteJs {
  const files = new Set<string>()
  const addWithImports = (fileName: string): void => {
    const output = bundle[fileName]
    if (files.has(fileName) || !isChunk(output)) return
    files.add(fileName)
    for (const imported of (output as Rollup.OutputChunk).imports) addWithImports(imported)
  }
  for (const fileName of roots) addWithImports(fileName)
  const chunks = [...files].sort().map((fileName) => bundle[fileName] as Rollup.OutputChunk)
  const measured = chunks.map((chunk) => ({
    fileName: chunk.fileName,
    gzipBytes: gzipSync(chunk.code).byteLength,
  }))
  const modules = chunks
    .flatMap((chunk) =>
      Object.entries(chunk.modules).map(([id, module]) => ({
        id,
        renderedBytes: module.renderedLength,
      })),
    )
    .filter((module) => module.renderedBytes > 0)
    .sort((a, b) => b.renderedBytes - a.renderedBytes)
  return {
    files: measured,
    gzipBytes: measured.reduce((sum, file) => sum + file.gzipBytes, 0),
    modules,
  }
}

export const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`

/** The sentence a remote's build over its budget fails with: the files, the biggest modules. */
export function overBudgetMessage(
  name: string,
  budgetKiB: number,
  js: FirstRouteJs,
  root: string,
): string {
  return budgetMessage(
    `Remote "${name}": the JS of its first route is ${kib(js.gzipBytes)} gzipped, over its budget of ${budgetKiB} KiB (firstRouteBudgetKiB in its vite.config.ts).`,
    js,
    root,
  )
}

/** `heading`, then the files and the biggest modules of `js`, then what to do. */
export function budgetMessage(
  heading: string,
  js: FirstRouteJs,
  root: string,
  listed = 10,
): string {
  const shortId = (id: string): string => {
    const clean = id.replace(/^\0/, '').replace(/\?.*$/, '')
    const inModules = clean.lastIndexOf('/node_modules/')
    if (inModules !== -1) return clean.slice(inModules + 1)
    return path.isAbsolute(clean) ? path.relative(root, clean) : clean
  }
  return [
    heading,
    'Files (gzip):',
    ...js.files.map((file) => `  ${kib(file.gzipBytes).padStart(10)}  ${file.fileName}`),
    `Biggest modules (in the bundle, before minifying):`,
    ...js.modules
      .slice(0, listed)
      .map((module) => `  ${kib(module.renderedBytes).padStart(10)}  ${shortId(module.id)}`),
    'Load what the first page does not need with import() when it is needed, or raise the budget with a reason.',
  ].join('\n')
}

/** What a JS budget measures, and what it says. */
export interface JsBudget {
  /** The plugin's name. */
  name: string
  /** What it counts, in the line a build within budget prints: `first route`, `entry`. */
  label: string
  budgetKiB: number
  measure(bundle: Rollup.OutputBundle): FirstRouteJs
  /** The sentence a build over budget fails with (`budgetMessage`). */
  overBudget(js: FirstRouteJs, root: string): string
}

/**
 * Vite plugin: fails the build when the JS `budget.measure` counts, gzipped, is over its budget,
 * listing the files and the biggest modules; within budget it says how much it used.
 */
export function jsBudgetPlugin(budget: JsBudget): Plugin {
  let root = ''
  return {
    name: budget.name,
    apply: 'build',
    configResolved(config) {
      root = config.root
    },
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        const js = budget.measure(bundle)
        if (js.gzipBytes > budget.budgetKiB * 1024) this.error(budget.overBudget(js, root))
        this.info(
          `${budget.label}: ${kib(js.gzipBytes)} of JS gzipped, budget ${budget.budgetKiB} KiB (${js.files.length} files)`,
        )
      },
    },
  }
}

/** The remote's first-route budget (`firstRouteJs`, `firstRouteBudgetKiB`). */
export function firstRouteBudgetPlugin(options: { name: string; budgetKiB: number }): Plugin {
  return jsBudgetPlugin({
    name: 'tessera:first-route-budget',
    label: 'first route',
    budgetKiB: options.budgetKiB,
    measure: firstRouteJs,
    overBudget: (js, root) => overBudgetMessage(options.name, options.budgetKiB, js, root),
  })
}
