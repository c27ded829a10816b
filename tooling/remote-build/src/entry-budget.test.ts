import { describe, expect, it, vi } from 'vitest'
import { entryBudgetPlugin, entryJs } from './entry-budget.ts'
import { bundleOf, chunk } from './testing/fake-bundle.ts'

const bundle = bundleOf([
  chunk('assets/index-1.js', {
    isEntry: true,
    imports: ['assets/react-2.js'],
    dynamicImports: ['assets/legal-3.js'],
    code: `export const app = ${JSON.stringify('x'.repeat(4000))}`,
    modules: { '/h/src/main.ts': 300, '/h/node_modules/zod/v4/classic/schemas.js': 90_000 },
  }),
  chunk('assets/react-2.js', { modules: { '/h/node_modules/react-dom/client.js': 180_000 } }),
  chunk('assets/legal-3.js', { modules: { '/h/src/legal.tsx': 7000 } }),
])

/** Runs the plugin's bundle hook as Vite would, with the hook's context. */
function run(budgetKiB: number) {
  const plugin = entryBudgetPlugin({ budgetKiB, setting: 'ENTRY_BUDGET_KIB in vite.config.ts' })
  const context = { error: vi.fn(), info: vi.fn() }
  ;(plugin.configResolved as (config: { root: string }) => void)({ root: '/h' })
  const hook = plugin.generateBundle as { handler: (...args: unknown[]) => void }
  hook.handler.call(context, {}, bundle)
  return context
}

describe('the entry budget', () => {
  it('counts the entry chunks and what they import statically, not what they load later', () => {
    const js = entryJs(bundle)
    expect(js.files.map((file) => file.fileName)).toEqual([
      'assets/index-1.js',
      'assets/react-2.js',
    ])
    expect(js.modules[0]?.id).toBe('/h/node_modules/react-dom/client.js')
  })

  it('fails a build over it, naming the setting and the biggest modules', () => {
    const { error } = run(0.01)
    expect(error).toHaveBeenCalledOnce()
    const message = String(error.mock.calls[0]?.[0])
    expect(message).toContain('over its budget of 0.01 KiB (ENTRY_BUDGET_KIB in vite.config.ts)')
    expect(message).toContain('node_modules/zod/v4/classic/schemas.js')
    expect(message).not.toContain('src/legal.tsx')
  })

  it('lets a build within it pass, saying how much it used', () => {
    const { error, info } = run(100)
    expect(error).not.toHaveBeenCalled()
    expect(String(info.mock.calls[0]?.[0])).toMatch(
      /^entry: \d+\.\d KiB of JS gzipped, budget 100 KiB \(2 files\)$/,
    )
  })
})
