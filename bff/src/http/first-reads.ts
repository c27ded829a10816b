import { FIRST_READS_ELEMENT_ID, type InlinedRead, type InlinedReads } from '@tessera/contracts'

/**
 * The largest answer a page carries: a bigger one (a long conversation list, say) stays a preload,
 * as the page is not shown before its last byte has arrived.
 */
export const MAX_INLINED_READ_BYTES = 32 * 1024

/**
 * The answer's headers a read's code may look at: its type, its request id (for support), a
 * `Retry-After`, and Tessera's own (`Tessera-Events-Position`). The rest (CORS, security headers)
 * describes the response on the wire, which an answer in the page is not.
 */
const keptHeader = (name: string): boolean =>
  name === 'content-type' ||
  name === 'x-request-id' ||
  name === 'retry-after' ||
  name.startsWith('tessera-')

/** What `answerFirstReads` gives the page. */
export interface FirstReads {
  answers: InlinedReads
  /** The answers' `Set-Cookie`s (a session cookie renewed on the way), for the page's response. */
  cookies: string[]
}

/**
 * Runs the page's first reads (`read` asks the BFF's own routes, with the page request's cookies)
 * and keeps the answers a page may carry: JSON, not a server error (the page's code asks again and
 * may be luckier), at most `MAX_INLINED_READ_BYTES`. A read that throws is left to the page too.
 */
export async function answerFirstReads(
  paths: readonly string[],
  read: (path: string) => Promise<Response>,
): Promise<FirstReads> {
  const answers: InlinedReads = {}
  const cookies = new Set<string>()
  await Promise.all(
    [...new Set(paths)].map(async (path) => {
      let response: Response
      try {
        response = await read(path)
      } catch {
        return
      }
      for (const cookie of response.headers.getSetCookie()) cookies.add(cookie)
      const type = response.headers.get('content-type') ?? ''
      if (response.status >= 500 || !type.startsWith('application/json')) {
        await response.body?.cancel()
        return
      }
      const body = await response.text()
      if (new TextEncoder().encode(body).byteLength > MAX_INLINED_READ_BYTES) return
      const headers: Record<string, string> = {}
      response.headers.forEach((value, name) => {
        if (keptHeader(name)) headers[name] = value
      })
      answers[path] = { status: response.status, headers, body } satisfies InlinedRead
    }),
  )
  return { answers, cookies: [...cookies] }
}

/**
 * The answers as the page's JSON block. Not a script the browser runs (no CSP source needed); `<`,
 * `>` and `&` are escaped so no text of an answer can end the element.
 */
export function firstReadsBlock(answers: InlinedReads): string {
  const json = JSON.stringify(answers)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
  return `<script type="application/json" id="${FIRST_READS_ELEMENT_ID}">${json}</script>`
}

/** Request headers a read does not take from the page's request: it asks for plain JSON, whole. */
const droppedHeaders = [
  'accept',
  'accept-encoding',
  'content-length',
  'content-type',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'if-range',
  'if-unmodified-since',
  'range',
]

/** The request a first read makes: the page's (its cookies, its client's address), asking JSON. */
export function firstReadRequest(page: Request, path: string): Request {
  const headers = new Headers(page.headers)
  for (const name of droppedHeaders) headers.delete(name)
  headers.set('accept', 'application/json')
  return new Request(new URL(path, page.url), { headers })
}
