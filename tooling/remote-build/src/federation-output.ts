import path from 'node:path'
import type { Plugin, Rollup } from 'vite'
import { REMOTE_ENTRY } from './descriptor.ts'
import { exposedClosure, isExposeChunk } from './exposed-closure.ts'

type OutputBundle = Rollup.OutputBundle

/** Markers originjs leaves in `remoteEntry.js` when one of its replacements did not apply. */
const leftoverMarkers = ['__v__css__', '__VITE_BASE_PLACEHOLDER__', '${__federation_expose_']

/**
 * Deletes the chunks that nothing reachable from `remoteEntry.js` can import. With
 * `generate: false` originjs means to drop its fallback copies of the shared packages, but under
 * Rolldown the chunks are not named the way its filter expects, so they would still be emitted
 * (never loaded, but shipped and hashed; empty since host-provided-shared.ts).
 */
export function pruneUnreachableChunks(bundle: OutputBundle, entry: string): string[] {
  const reachable = new Set<string>()
  const pending = [
    entry,
    ...Object.values(bundle)
      .filter((output): output is Rollup.OutputChunk => output.type === 'chunk')
      .filter(isExposeChunk)
      .map((chunk) => chunk.fileName),
  ]
  while (pending.length > 0) {
    const fileName = pending.pop()
    if (fileName === undefined || reachable.has(fileName)) continue
    reachable.add(fileName)
    const output = bundle[fileName]
    if (output?.type === 'chunk') pending.push(...output.imports, ...output.dynamicImports)
  }
  const pruned: string[] = []
  for (const [fileName, output] of Object.entries(bundle)) {
    if (output.type === 'chunk' && !reachable.has(fileName)) {
      pruned.push(fileName)
      delete bundle[fileName]
    }
  }
  return pruned.sort()
}

/**
 * Checks that `remoteEntry.js` is loadable: originjs replaced all of its placeholders (the CSS
 * list is the one Vite 8's default minifier breaks) and every file it names is in the bundle.
 * Returns the problems found, empty when there are none.
 */
export function checkRemoteEntry(bundle: OutputBundle, entry: string): string[] {
  const chunk = bundle[entry]
  if (chunk?.type !== 'chunk') return [`the build emitted no ${entry}`]
  const problems: string[] = []
  for (const marker of leftoverMarkers) {
    if (chunk.code.includes(marker)) {
      problems.push(`${entry} still contains the originjs placeholder "${marker}"`)
    }
  }
  // originjs deletes its CSS-loading call when it cannot match the exposed module, so the CSS
  // would silently never load: every stylesheet the exposed module imports must be named.
  for (const css of exposedClosure(bundle).css) {
    if (!chunk.code.includes(JSON.stringify(path.posix.basename(css)))) {
      problems.push(`${entry} does not load "${css}", the CSS of the exposed module`)
    }
  }
  const entryDir = path.posix.dirname(entry)
  for (const match of chunk.code.matchAll(/["']([^"'\s]+\.(?:js|css))["']/g)) {
    const reference = match[1] ?? ''
    if (reference === path.posix.basename(entry)) continue
    // Relative imports resolve against remoteEntry.js; originjs's CSS list holds bare names in the same folder.
    const resolved = path.posix.normalize(path.posix.join(entryDir, reference))
    if (!(resolved in bundle))
      problems.push(`${entry} refers to "${reference}", which the build did not emit`)
  }
  return problems
}

/**
 * Vite plugin run after originjs: removes unreachable chunks, then fails the build when
 * `remoteEntry.js` would not load.
 */
export function federationOutputPlugin(): Plugin {
  return {
    name: 'tessera:federation-output',
    apply: 'build',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        pruneUnreachableChunks(bundle, REMOTE_ENTRY)
        const problems = checkRemoteEntry(bundle, REMOTE_ENTRY)
        if (problems.length > 0) this.error(problems.join('\n'))
      },
    },
  }
}
