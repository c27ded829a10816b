import { describe, expect, it } from 'vitest'
import { firstLoadModules, type ModuleGraph } from './first-load-chunk.ts'

function graph(imports: Record<string, string[]>, entries: string[]): ModuleGraph {
  return {
    ids: Object.keys(imports),
    importedIds: (id) => imports[id] ?? [],
    isEntry: (id) => entries.includes(id),
  }
}

describe('firstLoadModules', () => {
  it('takes what the exposed module imports statically, however deep, but not the module itself', () => {
    const modules = firstLoadModules(
      graph(
        {
          remoteEntry: [],
          plugin: ['menu', 'platform'],
          menu: ['platform', 'format'],
          platform: [],
          format: [],
          page: ['format'],
        },
        ['remoteEntry', 'plugin'],
      ),
      'plugin',
    )
    expect([...modules].sort()).toEqual(['format', 'menu', 'platform'])
  })

  it('leaves out what another entry imports, which loads without the plugin', () => {
    const modules = firstLoadModules(
      graph(
        {
          remoteEntry: ['importHelper'],
          plugin: ['importHelper', 'menu'],
          importHelper: [],
          menu: [],
        },
        ['remoteEntry', 'plugin'],
      ),
      'plugin',
    )
    expect([...modules]).toEqual(['menu'])
  })

  it('leaves out what only a lazy page imports', () => {
    const modules = firstLoadModules(
      graph({ plugin: ['shared'], shared: [], page: ['shared', 'pageOnly'], pageOnly: [] }, [
        'plugin',
      ]),
      'plugin',
    )
    expect([...modules]).toEqual(['shared'])
  })

  it('ends on an import cycle', () => {
    const modules = firstLoadModules(
      graph({ plugin: ['a'], a: ['b'], b: ['a'] }, ['plugin']),
      'plugin',
    )
    expect([...modules].sort()).toEqual(['a', 'b'])
  })
})
