import { describe, expect, it } from 'vitest'
import type { Rollup } from 'vite'
import { checkRemoteEntry, pruneUnreachableChunks } from './federation-output.ts'

const entry = 'assets/remoteEntry.js'

function chunk(
  fileName: string,
  code: string,
  links: { name?: string; imports?: string[]; dynamicImports?: string[]; css?: string[] } = {},
): Rollup.OutputChunk {
  return {
    type: 'chunk',
    fileName,
    name: links.name ?? fileName,
    code,
    imports: links.imports ?? [],
    dynamicImports: links.dynamicImports ?? [],
    viteMetadata: { importedCss: new Set(links.css ?? []), importedAssets: new Set() },
  } as Rollup.OutputChunk
}

function asset(fileName: string): Rollup.OutputAsset {
  return { type: 'asset', fileName, source: '' } as unknown as Rollup.OutputAsset
}

function bundleOf(...outputs: (Rollup.OutputChunk | Rollup.OutputAsset)[]): Rollup.OutputBundle {
  return Object.fromEntries(outputs.map((output) => [output.fileName, output]))
}

const goodEntry =
  'const n={"./plugin":()=>(o(["plugin-1.css"]),import("./__federation_expose_Plugin-1.js"))};export{n as get}'

describe('pruneUnreachableChunks', () => {
  it('removes chunks that neither the entry nor the exposed module can reach', () => {
    const bundle = bundleOf(
      chunk(entry, goodEntry),
      chunk('assets/__federation_expose_Plugin-1.js', '', {
        name: '__federation_expose_Plugin',
        imports: ['assets/plugin-2.js'],
      }),
      chunk('assets/plugin-2.js', '', { dynamicImports: ['assets/page-3.js'] }),
      chunk('assets/page-3.js', ''),
      chunk('assets/react-4.js', ''),
      chunk('assets/react-dom-5.js', '', { imports: ['assets/react-4.js'] }),
      asset('assets/plugin-1.css'),
    )
    expect(pruneUnreachableChunks(bundle, entry)).toEqual([
      'assets/react-4.js',
      'assets/react-dom-5.js',
    ])
    expect(Object.keys(bundle).sort()).toEqual([
      'assets/__federation_expose_Plugin-1.js',
      'assets/page-3.js',
      'assets/plugin-1.css',
      'assets/plugin-2.js',
      entry,
    ])
  })
})

describe('checkRemoteEntry', () => {
  const rest = [
    chunk('assets/__federation_expose_Plugin-1.js', '', {
      name: '__federation_expose_Plugin',
      imports: ['assets/plugin-2.js'],
    }),
    chunk('assets/plugin-2.js', '', { css: ['assets/plugin-1.css'] }),
    asset('assets/plugin-1.css'),
  ]

  it('accepts an entry whose placeholders are replaced and whose files exist', () => {
    expect(checkRemoteEntry(bundleOf(chunk(entry, goodEntry), ...rest), entry)).toEqual([])
  })

  it('reports the CSS placeholder that Oxc-minified code leaves behind', () => {
    const broken =
      'const n={"./plugin":()=>(o(`__v__css__/src/plugin.tsx`),import("./__federation_expose_Plugin-1.js"))}'
    expect(checkRemoteEntry(bundleOf(chunk(entry, broken), ...rest), entry)).toEqual([
      `${entry} still contains the originjs placeholder "__v__css__"`,
      `${entry} does not load "assets/plugin-1.css", the CSS of the exposed module`,
    ])
  })

  it('reports an exposed module imported from a path the build did not emit', () => {
    const doubled = goodEntry.replace('./__federation', './assets/__federation')
    expect(checkRemoteEntry(bundleOf(chunk(entry, doubled), ...rest), entry)).toEqual([
      `${entry} refers to "./assets/__federation_expose_Plugin-1.js", which the build did not emit`,
    ])
  })

  it('reports CSS of the exposed module that remoteEntry.js does not load', () => {
    const withoutCss = 'const n={"./plugin":()=>import("./__federation_expose_Plugin-1.js")}'
    expect(checkRemoteEntry(bundleOf(chunk(entry, withoutCss), ...rest), entry)).toEqual([
      `${entry} does not load "assets/plugin-1.css", the CSS of the exposed module`,
    ])
  })

  it('reports a missing entry', () => {
    expect(checkRemoteEntry(bundleOf(...rest), entry)).toEqual([`the build emitted no ${entry}`])
  })
})
