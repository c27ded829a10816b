import type { Rollup } from 'vite'

/** originjs names the chunk of each exposed module `__federation_expose_<Name>`. */
export function isExposeChunk(chunk: Rollup.OutputChunk): boolean {
  return chunk.name.startsWith('__federation_expose_')
}

/**
 * What the exposed modules need before they can run: their chunks and every chunk they import
 * statically (in import order, exposed chunks first), and the stylesheets those chunks import.
 * Lazy chunks (dynamic imports) are left out: they load when the plugin asks for them.
 */
export function exposedClosure(bundle: Rollup.OutputBundle): { chunks: string[]; css: string[] } {
  const chunks: string[] = []
  const css = new Set<string>()
  const visit = (fileName: string): void => {
    const output = bundle[fileName]
    if (chunks.includes(fileName) || output?.type !== 'chunk') return
    chunks.push(fileName)
    for (const stylesheet of output.viteMetadata?.importedCss ?? []) css.add(stylesheet)
    for (const imported of output.imports) visit(imported)
  }
  const exposed = Object.values(bundle)
    .filter((output): output is Rollup.OutputChunk => output.type === 'chunk')
    .filter(isExposeChunk)
    .map((chunk) => chunk.fileName)
    .sort()
  for (const fileName of exposed) visit(fileName)
  return { chunks, css: [...css] }
}
