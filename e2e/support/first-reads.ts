import type { Page, Response } from '@playwright/test'

// The page's first reads, which the BFF answers inside the page (bff/src/http/first-reads.ts).

const block = /(<script type="application\/json" id="tessera-first-reads">)(.*?)(<\/script>)/

type Reads = Record<string, { body: string }>

/** A page without its answers (which are this request's): the page the host build made. */
export const withoutFirstReads = (html: string): string => html.replace(block, '')

/** The answer a page's HTML carries for `path` (it fails loudly when there is none). */
function answerIn(reads: Reads, path: string, url: string): { body: string } {
  const read = reads[path]
  if (read === undefined) throw new Error(`the page at ${url} carries no answer for ${path}`)
  return read
}

/** The answer the page carried for one of its first reads, parsed. */
export async function firstReadOf<T>(page: Response, path: string): Promise<T> {
  const found = block.exec(await page.text())
  return JSON.parse(
    answerIn(found === null ? {} : (JSON.parse(found[2]!) as Reads), path, page.url()).body,
  ) as T
}

/** The page's HTML with the answer it carries for `path` changed by `edit` (escaped as the BFF does). */
export function withFirstReadEdited<T>(html: string, path: string, edit: (body: T) => T): string {
  return html.replace(block, (_, open: string, json: string, close: string) => {
    const reads = JSON.parse(json) as Reads
    const read = answerIn(reads, path, 'this page')
    read.body = JSON.stringify(edit(JSON.parse(read.body) as T))
    return `${open}${JSON.stringify(reads).replace(/</g, '\\u003c')}${close}`
  })
}

/** The next page the tab loads (a navigation of its main frame), for `firstReadOf`. */
export function nextPageOf(page: Page): Promise<Response> {
  return page.waitForResponse(
    (response) => response.request().isNavigationRequest() && response.frame() === page.mainFrame(),
  )
}
