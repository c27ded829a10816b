import { describe, expect, it } from 'vitest'
import { exposedClosure } from './exposed-closure.ts'
import { chunk } from './testing/fake-bundle.ts'

describe('exposedClosure', () => {
  it('follows static imports from the exposed chunk, once each, and leaves lazy chunks out', () => {
    const outputs = [
      chunk('assets/remoteEntry.js'),
      chunk('assets/__federation_expose_Plugin-1.js', {
        name: '__federation_expose_Plugin',
        imports: ['assets/fn_import-2.js', 'assets/app-link-3.js'],
        dynamicImports: ['assets/page-4.js'],
        css: ['assets/__federation_expose_Plugin-1.css'],
      }),
      chunk('assets/fn_import-2.js'),
      chunk('assets/app-link-3.js', {
        imports: ['assets/fn_import-2.js'],
        css: ['assets/link.css'],
      }),
      chunk('assets/page-4.js', { imports: ['assets/app-link-3.js'], css: ['assets/page-4.css'] }),
    ]
    const bundle = Object.fromEntries(outputs.map((output) => [output.fileName, output]))
    expect(exposedClosure(bundle)).toEqual({
      chunks: [
        'assets/__federation_expose_Plugin-1.js',
        'assets/fn_import-2.js',
        'assets/app-link-3.js',
      ],
      css: ['assets/__federation_expose_Plugin-1.css', 'assets/link.css'],
      // The page the plugin imports lazily, without what the first chunks already carry.
      lazy: { chunks: ['assets/page-4.js'], css: ['assets/page-4.css'] },
    })
  })

  it('takes the lazy imports of every first chunk, one level down, each file once', () => {
    const outputs = [
      chunk('assets/__federation_expose_Plugin-1.js', {
        name: '__federation_expose_Plugin',
        imports: ['assets/plugin-2.js'],
      }),
      chunk('assets/plugin-2.js', {
        dynamicImports: ['assets/routes-3.js', 'assets/meter-4.js'],
        css: ['assets/base.css'],
      }),
      chunk('assets/routes-3.js', {
        imports: ['assets/shared-5.js'],
        dynamicImports: ['assets/schemas-6.js'],
        css: ['assets/base.css', 'assets/routes-3.css'],
      }),
      chunk('assets/meter-4.js', { imports: ['assets/shared-5.js'] }),
      chunk('assets/shared-5.js'),
      chunk('assets/schemas-6.js'),
    ]
    const bundle = Object.fromEntries(outputs.map((output) => [output.fileName, output]))
    expect(exposedClosure(bundle).lazy).toEqual({
      chunks: ['assets/routes-3.js', 'assets/shared-5.js', 'assets/meter-4.js'],
      css: ['assets/routes-3.css'],
    })
  })

  it('is empty for a bundle that exposes nothing', () => {
    const bundle = { 'assets/remoteEntry.js': chunk('assets/remoteEntry.js') }
    expect(exposedClosure(bundle)).toEqual({
      chunks: [],
      css: [],
      lazy: { chunks: [], css: [] },
    })
  })
})
