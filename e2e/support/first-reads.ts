import type { Page, Response } from '@playwright/test'

const block = /<script type="application\/json" id="tessera-first-reads">(.*?)<\/script>/

/** A page without its answers (which are this request's): the page the host build made. */
export const withoutFirstReads = (html: string): string => html.replace(block, '')

/**
 * The answer the page carried for one of its first reads (the BFF writes them into the page:
 * bff/src/http/first-reads.ts), parsed; it fails loudly when the page carries none for `path`.
 */
export async function firstReadOf<T>(page: Response, path: string): Promise<T> {
  const html = await page.text()
  const found = block.exec(html)
  const read =
    found === null ? undefined : (JSON.parse(found[1]!) as Record<string, { body: string }>)[path]
  if (read === undefined) throw new Error(`the page at ${page.url()} carries no answer for ${path}`)
  return JSON.parse(read.body) as T
}

/** The next page the tab loads (a navigation of its main frame), for `firstReadOf`. */
export function nextPageOf(page: Page): Promise<Response> {
  return page.waitForResponse(
    (response) => response.request().isNavigationRequest() && response.frame() === page.mainFrame(),
  )
}
