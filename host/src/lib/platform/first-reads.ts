import { FIRST_READS_ELEMENT_ID, type InlinedRead } from '@tessera/contracts'

type FetchImpl = (input: string, init?: RequestInit) => Promise<Response>

const isRead = (value: unknown): value is InlinedRead => {
  if (typeof value !== 'object' || value === null) return false
  const { status, headers, body } = value as Record<string, unknown>
  return (
    typeof status === 'number' &&
    Number.isInteger(status) &&
    status >= 200 &&
    status <= 599 &&
    typeof body === 'string' &&
    typeof headers === 'object' &&
    headers !== null &&
    Object.values(headers).every((header) => typeof header === 'string')
  )
}

/**
 * The reads the BFF answered in the page (its JSON block, decision 050), taken out of it: path and
 * query → answer. None when the page has no block (a host served without the BFF) or a block that
 * is not one; the reads then go to the network.
 */
export function takeFirstReads(document: Document): Map<string, InlinedRead> {
  const element = document.getElementById(FIRST_READS_ELEMENT_ID)
  const reads = new Map<string, InlinedRead>()
  if (element === null) return reads
  element.remove()
  try {
    const parsed: unknown = JSON.parse(element.textContent ?? '')
    if (typeof parsed === 'object' && parsed !== null) {
      for (const [path, read] of Object.entries(parsed)) if (isRead(read)) reads.set(path, read)
    }
  } catch (error) {
    console.warn('The page’s first reads could not be read; asking the server instead', error)
  }
  return reads
}

/** Statuses whose response has no body (`new Response` refuses one). */
const bodyless = new Set([204, 205, 304])

/**
 * `fetchImpl`, but the first GET of a path the page answered is answered from the page, as the
 * server sent it (status, headers, body); every later request of it goes to the network.
 */
export function answeringFirstReads(
  fetchImpl: FetchImpl,
  reads: Map<string, InlinedRead>,
  origin: string,
): FetchImpl {
  if (reads.size === 0) return fetchImpl
  return async (input, init) => {
    if ((init?.method ?? 'GET').toUpperCase() === 'GET' && reads.size > 0) {
      const url = new URL(input, origin)
      const key = `${url.pathname}${url.search}`
      const read = url.origin === origin ? reads.get(key) : undefined
      if (read !== undefined) {
        reads.delete(key)
        init?.signal?.throwIfAborted()
        const body = bodyless.has(read.status) ? null : read.body
        return new Response(body, { status: read.status, headers: read.headers })
      }
    }
    return fetchImpl(input, init)
  }
}
