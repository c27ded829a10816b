import { afterEach, describe, expect, it, vi } from 'vitest'
import { prefetchRemote, preloadRemoteFiles, takeUpStylesheetHints } from './preload-links.ts'

const entry = 'http://cdn.test/ai/1.0.0/assets/remoteEntry.js'
const base = 'http://cdn.test/ai/1.0.0/assets'

function links(): Array<Record<string, string | null>> {
  return [...document.head.querySelectorAll('link')].map((link) => ({
    rel: link.getAttribute('rel'),
    as: link.getAttribute('as'),
    crossorigin: link.getAttribute('crossorigin'),
    href: link.getAttribute('href'),
  }))
}

describe('preloadRemoteFiles', () => {
  afterEach(() => {
    document.head.replaceChildren()
  })

  it('announces scripts as CORS module preloads and stylesheets as plain style preloads', () => {
    const added = preloadRemoteFiles(document, entry, [
      `${base}/__federation_expose_Plugin-a1.js`,
      `${base}/__federation_expose_Plugin-b2.css`,
    ])
    expect(added).toBe(2)
    expect(links()).toEqual([
      {
        rel: 'modulepreload',
        as: null,
        crossorigin: 'anonymous',
        href: `${base}/__federation_expose_Plugin-a1.js`,
      },
      {
        rel: 'preload',
        as: 'style',
        crossorigin: null,
        href: `${base}/__federation_expose_Plugin-b2.css`,
      },
    ])
  })

  it('takes only files on the origin of the entry, and nothing but scripts and stylesheets', () => {
    const added = preloadRemoteFiles(document, entry, [
      'http://elsewhere.test/ai/1.0.0/assets/evil.js',
      `${base}/logo.svg`,
      'not a url',
      `${base}/chunk-c3.js`,
    ])
    expect(added).toBe(1)
    expect(links().map((link) => link.href)).toEqual([`${base}/chunk-c3.js`])
  })

  it('does not announce the same file twice', () => {
    preloadRemoteFiles(document, entry, [`${base}/chunk-c3.js`])
    expect(
      preloadRemoteFiles(document, entry, [`${base}/chunk-c3.js`, `${base}/chunk-c3.js`]),
    ).toBe(0)
    expect(links()).toHaveLength(1)
  })
})

describe('prefetchRemote', () => {
  afterEach(() => {
    document.head.replaceChildren()
  })

  it('fetches the entry and the first files once, however often the link is hovered', () => {
    const remote = { entryUrl: entry, preload: [`${base}/__federation_expose_Plugin-a1.js`] }
    expect(prefetchRemote(document, remote)).toBe(2)
    expect(prefetchRemote(document, remote)).toBe(0)
    expect(links().map((link) => [link.rel, link.href])).toEqual([
      ['modulepreload', entry],
      ['modulepreload', `${base}/__federation_expose_Plugin-a1.js`],
    ])
  })

  it('fetches the pages’ lazy chunks too: the visit the pointer announces needs them next', () => {
    const remote = {
      entryUrl: entry,
      preload: [`${base}/__federation_expose_Plugin-a1.js`],
      routePreload: [`${base}/billing-routes-b2.js`, `${base}/billing-routes-b2.css`],
    }
    expect(prefetchRemote(document, remote)).toBe(4)
    expect(links().map((link) => link.rel)).toEqual([
      'modulepreload',
      'modulepreload',
      'modulepreload',
      'preload',
    ])
    // Vite's preload helper adds a route chunk's stylesheet with crossorigin="": the same mode.
    expect(links().at(-1)).toMatchObject({ as: 'style', crossorigin: 'anonymous' })
  })

  it('adds nothing for files the page already hints (the BFF’s links for the first route)', () => {
    document.head.insertAdjacentHTML(
      'beforeend',
      `<link rel="modulepreload" crossorigin href="${entry}">`,
    )
    expect(prefetchRemote(document, { entryUrl: entry })).toBe(0)
    expect(links()).toHaveLength(1)
  })
})

describe('takeUpStylesheetHints', () => {
  afterEach(() => {
    document.head.replaceChildren()
  })

  it('asks once for each hinted stylesheet in its hint’s mode, and keeps nothing of it', () => {
    const remote = {
      entryUrl: entry,
      preload: [
        `${base}/__federation_expose_Plugin-a1.js`,
        `${base}/__federation_expose_Plugin-a1.css`,
      ],
      routePreload: [`${base}/billing-routes-b2.css`, 'http://elsewhere.test/x.css'],
    }
    const appended: HTMLLinkElement[] = []
    const append = document.head.append.bind(document.head)
    vi.spyOn(document.head, 'append').mockImplementation((...nodes) => {
      appended.push(...(nodes as HTMLLinkElement[]))
      append(...nodes)
    })
    expect(takeUpStylesheetHints(document, remote)).toBe(2)
    expect(appended.map((link) => [link.rel, link.getAttribute('crossorigin'), link.href])).toEqual(
      [
        ['stylesheet', null, `${base}/__federation_expose_Plugin-a1.css`],
        ['stylesheet', 'anonymous', `${base}/billing-routes-b2.css`],
      ],
    )
    // Settled (here, refused: the test DOM loads no stylesheet): nothing of them is kept.
    expect(links()).toEqual([])
  })
})
