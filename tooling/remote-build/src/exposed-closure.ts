import type { Rollup } from 'vite'

/** originjs names the chunk of each exposed module `__federation_expose_<Name>`. */
export function isExposeChunk(chunk: Rollup.OutputChunk): boolean {
  return chunk.name.startsWith('__federation_expose_')
}

interface Closure {
  chunks: string[]
  css: string[]
}

/**
 * What the exposed modules need before they can run: their chunks and every chunk they import
 * statically (in import order, exposed chunks first), and the stylesheets those chunks import.
 * `lazy` is what those chunks import dynamically, one level down (the route pages a plugin hands the
 * host as `routes: () => import(…)`, its slots' lazy parts), with those chunks' static imports
 * and stylesheets, minus what is already above: a page of the remote asks for it as soon as the
 * plugin runs, so a visit to one of its pages may fetch it ahead.
 */
export function exposedClosure(bundle: Rollup.OutputBundle): Closure & { lazy: Closure } {
  const collect = (roots: readonly string[], known: ReadonlySet<string>): Closure => {
    const chunks: string[] = []
    const css = new Set<string>()
    const visit = (fileName: string): void => {
      const output = bundle[fileName]
      if (known.has(fileName) || chunks.includes(fileName) || output?.type !== 'chunk') return
      chunks.push(fileName)
      for (const stylesheet of output.viteMetadata?.importedCss ?? []) css.add(stylesheet)
      for (const imported of output.imports) visit(imported)
    }
    for (const fileName of roots) visit(fileName)
    return { chunks, css: [...css] }
  }
  const exposed = Object.values(bundle)
    .filter((output): output is Rollup.OutputChunk => output.type === 'chunk')
    .filter(isExposeChunk)
    .map((chunk) => chunk.fileName)
    .sort()
  const first = collect(exposed, new Set())
  const dynamic = first.chunks.flatMap((fileName) => {
    const output = bundle[fileName]
    return output?.type === 'chunk' ? output.dynamicImports : []
  })
  const lazy = collect(dynamic, new Set(first.chunks))
  const firstCss = new Set(first.css)
  return { ...first, lazy: { ...lazy, css: lazy.css.filter((file) => !firstCss.has(file)) } }
}
