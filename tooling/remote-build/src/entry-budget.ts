import type { Plugin, Rollup } from 'vite'
import { budgetMessage, jsBudgetPlugin, kib, staticJsOf } from './first-route-budget.ts'
import type { FirstRouteJs } from './first-route-budget.ts'

/** The JS every cold page of an app loads first: its entry chunks and what they import statically. */
export function entryJs(bundle: Rollup.OutputBundle): FirstRouteJs {
  const entries = Object.values(bundle)
    .filter((output): output is Rollup.OutputChunk => output.type === 'chunk' && output.isEntry)
    .map((chunk) => chunk.fileName)
  return staticJsOf(bundle, entries)
}

/**
 * Vite plugin for the host: fails the build when the JS every cold page loads first (`entryJs`),
 * gzipped, is over `budgetKiB`, listing the files and the biggest modules (a schema library's
 * full build creeping back in, a page that should be lazy); within budget it says how much it used.
 */
export function entryBudgetPlugin(options: { budgetKiB: number; setting: string }): Plugin {
  return jsBudgetPlugin({
    name: 'tessera:entry-budget',
    label: 'entry',
    budgetKiB: options.budgetKiB,
    measure: entryJs,
    overBudget: (js, root) =>
      budgetMessage(
        `The JS every cold page loads first is ${kib(js.gzipBytes)} gzipped, over its budget of ${options.budgetKiB} KiB (${options.setting}).`,
        js,
        root,
      ),
  })
}
