// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { MarkdownView, safeUrl } from './markdown.tsx'

afterEach(cleanup)

function renderMarkdown(text: string): HTMLElement {
  const { container } = render(<MarkdownView text={text} />)
  return container
}

describe('MarkdownView', () => {
  it('shows an HTML image with an onerror handler as text, never as an element', () => {
    const view = renderMarkdown(
      'Look: <img src=x onerror=alert(1)>\n\n<img src=x onerror=alert(2)>',
    )
    expect(view.querySelector('img')).toBeNull()
    expect(view.querySelector('[onerror]')).toBeNull()
    expect(view.textContent).toContain('<img src=x onerror=alert(1)>')
    expect(view.textContent).toContain('<img src=x onerror=alert(2)>')
  })

  it('shows script tags and raw HTML links as text', () => {
    const view = renderMarkdown(
      '<script>alert(1)</script>\n\nand <a href="javascript:alert(1)">this</a>',
    )
    expect(view.querySelector('script')).toBeNull()
    expect(view.querySelector('a')).toBeNull()
    expect(view.textContent).toContain('<script>alert(1)</script>')
    expect(view.textContent).toContain('<a href="javascript:alert(1)">')
  })

  it('renders a javascript: link inert, as plain text with no address', () => {
    const view = renderMarkdown(
      '[click me](javascript:alert(document.cookie)) and [again](JaVaScRiPt:alert(1)) and [data](data:text/html,<b>x</b>)',
    )
    expect(view.querySelectorAll('a')).toHaveLength(0)
    expect(view.innerHTML.toLowerCase()).not.toContain('javascript:')
    expect(view.innerHTML).not.toContain('data:text')
    expect(screen.getByText('click me').tagName).toBe('SPAN')
  })

  it('keeps http(s) and mailto links, opening web links in a new tab without an opener', () => {
    const view = renderMarkdown(
      '[docs](https://example.com/a?b=1) and [mail](mailto:ada@example.com)',
    )
    const [web, mail] = [...view.querySelectorAll('a')]
    expect(web?.getAttribute('href')).toBe('https://example.com/a?b=1')
    expect(web?.getAttribute('target')).toBe('_blank')
    expect(web?.getAttribute('rel')).toBe('noopener noreferrer nofollow')
    expect(web?.textContent).toBe('docs (opens in a new tab)')
    expect(mail?.getAttribute('href')).toBe('mailto:ada@example.com')
    expect(mail?.hasAttribute('target')).toBe(false)
  })

  it('never loads a Markdown image, offering a link to a safe address instead', () => {
    const view = renderMarkdown(
      '![a chart](https://tracker.example/pixel.png) ![bad](javascript:alert(1))',
    )
    expect(view.querySelector('img')).toBeNull()
    const link = view.querySelector('a')
    expect(link?.getAttribute('href')).toBe('https://tracker.example/pixel.png')
    expect(link?.textContent).toContain('a chart')
    expect(view.textContent).toContain('Image: bad')
    expect(view.innerHTML).not.toContain('javascript:')
  })

  it('styles a fenced code block with its language and copies its code', async () => {
    const writeText = vi.fn(() => Promise.resolve())
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    const view = renderMarkdown('```ts\nconst answer = 42\n```')
    expect(view.querySelector('.md-code__language')?.textContent).toBe('ts')
    expect(view.querySelector('pre code')?.textContent).toBe('const answer = 42\n')
    fireEvent.click(screen.getByRole('button', { name: 'Copy' }))
    expect(writeText).toHaveBeenCalledWith('const answer = 42')
    await waitFor(() => expect(screen.getByRole('button', { name: 'Copied' })).toBeTruthy())
  })

  it('renders GFM tables, strikethrough and task lists, with headings below the page’s own', () => {
    const view = renderMarkdown(
      '# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n~~old~~\n\n- [x] done\n- [ ] todo',
    )
    expect(view.querySelector('h1')).toBeNull()
    expect(view.querySelector('h3')?.textContent).toBe('Title')
    expect(view.querySelectorAll('td')).toHaveLength(2)
    expect(view.querySelector('del')?.textContent).toBe('old')
    expect(view.querySelectorAll('input[type="checkbox"]')).toHaveLength(2)
  })
})

describe('safeUrl', () => {
  it('keeps absolute web and mail addresses and footnote anchors, and nothing else', () => {
    expect(safeUrl('https://example.com', 'href', undefined as never)).toBe('https://example.com')
    expect(safeUrl('http://example.com', 'href', undefined as never)).toBe('http://example.com')
    expect(safeUrl('mailto:a@b.c', 'href', undefined as never)).toBe('mailto:a@b.c')
    expect(safeUrl('#user-content-fn-1', 'href', undefined as never)).toBe('#user-content-fn-1')
    for (const bad of [
      'javascript:alert(1)',
      ' javascript:alert(1)',
      'vbscript:x',
      'data:text/html,x',
      'file:///etc/passwd',
      '/billing',
      'x',
    ]) {
      expect(safeUrl(bad, 'href', undefined as never), bad).toBe('')
    }
  })
})
