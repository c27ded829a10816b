import type { Rollup } from 'vite'

/** A chunk of a Rollup output bundle, with what a budget or preload test looks at. */
export function chunk(
  fileName: string,
  links: {
    name?: string
    code?: string
    imports?: string[]
    dynamicImports?: string[]
    modules?: Record<string, number>
    css?: string[]
    isEntry?: boolean
  } = {},
): Rollup.OutputChunk {
  return {
    type: 'chunk',
    fileName,
    isEntry: links.isEntry ?? false,
    name: links.name ?? fileName,
    code: links.code ?? `export const name = ${JSON.stringify(fileName)}`,
    imports: links.imports ?? [],
    dynamicImports: links.dynamicImports ?? [],
    modules: Object.fromEntries(
      Object.entries(links.modules ?? {}).map(([id, renderedLength]) => [id, { renderedLength }]),
    ),
    viteMetadata: { importedCss: new Set(links.css ?? []), importedAssets: new Set() },
  } as unknown as Rollup.OutputChunk
}

export const bundleOf = (outputs: Rollup.OutputChunk[]): Rollup.OutputBundle =>
  Object.fromEntries(outputs.map((output) => [output.fileName, output]))
