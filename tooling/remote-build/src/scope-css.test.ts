import postcss from 'postcss'
import { describe, expect, it } from 'vitest'
import { scopeCss, scopeSelectorList, splitTopLevel } from './scope-css.ts'

const scope = '[data-tessera-remote="billing"]'

async function scoped(css: string, remote = 'billing'): Promise<string> {
  const result = await postcss([scopeCss({ remote })]).process(css, { from: undefined })
  return result.css
}

describe('scopeSelectorList', () => {
  it('puts the scope in front of element, class and universal selectors', () => {
    expect(scopeSelectorList('h1', scope)).toBe(`${scope} h1`)
    expect(scopeSelectorList('.card > p', scope)).toBe(`${scope} .card > p`)
    expect(scopeSelectorList('*', scope)).toBe(`${scope} *`)
    expect(scopeSelectorList('button:hover::after', scope)).toBe(`${scope} button:hover::after`)
  })

  it('scopes every selector of a list but not the commas inside :is() or attributes', () => {
    expect(scopeSelectorList('h1, p', scope)).toBe(`${scope} h1, ${scope} p`)
    expect(scopeSelectorList(':is(h1, h2) a', scope)).toBe(`${scope} :is(h1, h2) a`)
    expect(scopeSelectorList('a[title="x, y"]', scope)).toBe(`${scope} a[title="x, y"]`)
  })

  it('maps :root, html and body to the scope element itself', () => {
    expect(scopeSelectorList(':root', scope)).toBe(scope)
    expect(scopeSelectorList('html', scope)).toBe(scope)
    expect(scopeSelectorList('body', scope)).toBe(scope)
    expect(scopeSelectorList('HTML', scope)).toBe(scope)
    expect(scopeSelectorList(':scope', scope)).toBe(scope)
  })

  it('keeps what follows a root selector, folding html body into one element', () => {
    expect(scopeSelectorList(':root .card', scope)).toBe(`${scope} .card`)
    expect(scopeSelectorList('body > main', scope)).toBe(`${scope} > main`)
    expect(scopeSelectorList('html body h1', scope)).toBe(`${scope} h1`)
    expect(scopeSelectorList(':root > body.dark p', scope)).toBe(`${scope}.dark p`)
    expect(scopeSelectorList('html[lang] a', scope)).toBe(`${scope}[lang] a`)
  })

  it('does not mistake names that only start like html or body for them', () => {
    expect(scopeSelectorList('html-card', scope)).toBe(`${scope} html-card`)
    expect(scopeSelectorList('.body', scope)).toBe(`${scope} .body`)
    expect(scopeSelectorList('bodyish', scope)).toBe(`${scope} bodyish`)
  })

  it('leaves a selector that already starts with the scope as it is', () => {
    expect(scopeSelectorList(`${scope} h1`, scope)).toBe(`${scope} h1`)
  })

  it('folds duplicates that root selectors produce', () => {
    expect(scopeSelectorList('html, body', scope)).toBe(scope)
  })
})

describe('splitTopLevel', () => {
  it('ignores separators inside strings, brackets, parentheses and escapes', () => {
    expect(splitTopLevel('a, b', ',')).toEqual(['a', ' b'])
    expect(splitTopLevel(":not(a, b), [x='1,2'], .a\\,b", ',')).toEqual([
      ':not(a, b)',
      " [x='1,2']",
      ' .a\\,b',
    ])
  })
})

describe('scopeCss', () => {
  it('scopes top-level rules and rules inside @media, @supports and @layer', async () => {
    const css = await scoped(
      'h1{color:red}@media (min-width: 40em){p{margin:0}}@supports (display:grid){.grid{display:grid}}@layer base{button{font:inherit}}',
    )
    expect(css).toBe(
      `${scope} h1{color:red}@media (min-width: 40em){${scope} p{margin:0}}@supports (display:grid){${scope} .grid{display:grid}}@layer base{${scope} button{font:inherit}}`,
    )
  })

  it('leaves nested rules alone because their parent already carries the scope', async () => {
    expect(await scoped('.card{color:red;& p{margin:0}}')).toBe(
      `${scope} .card{color:red;& p{margin:0}}`,
    )
  })

  it('turns custom properties set on :root into properties of the scope element', async () => {
    expect(await scoped(':root{--gap:8px}')).toBe(`${scope}{--gap:8px}`)
  })

  it('prefixes keyframes and the animations that use them, not keyframe steps', async () => {
    const css = await scoped(
      '@keyframes pulse{from{opacity:0}50%{opacity:.5}to{opacity:1}}p{animation:pulse 1s linear infinite}.x{animation-name:pulse, fade}',
    )
    expect(css).toBe(
      `@keyframes tessera-billing-pulse{from{opacity:0}50%{opacity:.5}to{opacity:1}}${scope} p{animation:tessera-billing-pulse 1s linear infinite}${scope} .x{animation-name:tessera-billing-pulse, fade}`,
    )
  })

  it('leaves @font-face declarations as they are', async () => {
    expect(await scoped('@font-face{font-family:x;src:url(x.woff2)}')).toBe(
      '@font-face{font-family:x;src:url(x.woff2)}',
    )
  })

  it('scopes to the remote it is given', async () => {
    expect(await scoped('h1{color:red}', 'ai')).toBe('[data-tessera-remote="ai"] h1{color:red}')
  })

  it('refuses to run without a remote name', () => {
    expect(() => scopeCss({ remote: '' })).toThrow(/remote name/)
  })
})
