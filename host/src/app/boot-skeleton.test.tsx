import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { BootSkeleton } from './boot-skeleton.tsx'
import indexHtml from '../../index.html?raw'

describe('the boot skeleton in index.html', () => {
  it('is the markup React renders first, so the first paint needs no script', () => {
    const root = /<div id="root">([\s\S]*?)<\/div>\s*<\/body>/.exec(indexHtml)?.[1]
    expect(root?.replace(/>\s+</g, '><').trim()).toBe(renderToStaticMarkup(<BootSkeleton />))
  })
})
