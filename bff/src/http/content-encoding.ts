import type { Context } from 'hono'
import { parseAccept } from 'hono/utils/accept'

/** The encodings the BFF sends, best first: brotli where a precompressed copy exists, then gzip. */
export type ContentEncoding = 'br' | 'gzip'

/**
 * The encoding to send among `offered` (best first): the highest q-value `Accept-Encoding` gives
 * one of them (an explicit entry, else `*`), ties going to the order of `offered` — browsers list
 * `gzip, deflate, br` at one q-value and brotli is smaller. Null for the identity.
 */
export function preferredEncoding(
  c: Context,
  offered: readonly ContentEncoding[] = ['br', 'gzip'],
): ContentEncoding | null {
  const header = c.req.header('accept-encoding')
  if (header === undefined || offered.length === 0) return null
  const ranges = parseAccept(header)
  const wildcard = ranges.find((range) => range.type === '*')?.q ?? 0
  let best: { encoding: ContentEncoding; q: number } | null = null
  for (const encoding of offered) {
    const q = ranges.find((range) => range.type.toLowerCase() === encoding)?.q ?? wildcard
    if (q > 0 && (best === null || q > best.q)) best = { encoding, q }
  }
  return best?.encoding ?? null
}

/** Adds `Accept-Encoding` to a response's `Vary`, once. */
export function varyOnEncoding(headers: Headers): void {
  const vary = headers.get('vary')
  if (vary === null) headers.set('Vary', 'Accept-Encoding')
  else if (!/(^|,)\s*accept-encoding\s*(,|$)/i.test(vary)) {
    headers.set('Vary', `${vary}, Accept-Encoding`)
  }
}

/** `body` gzipped (CompressionStream: the same under Node, Workers and Deno). */
export function gzip(body: string | Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  return readAll(new Blob([body]).stream().pipeThrough(new CompressionStream('gzip')))
}

/**
 * Every byte of a stream. Read by hand: under @hono/node-server the global `Response` is its own
 * lighter class, whose body readers do not take a stream.
 */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = []
  let length = 0
  for await (const chunk of stream) {
    chunks.push(chunk)
    length += chunk.byteLength
  }
  const all = new Uint8Array(length)
  let offset = 0
  for (const chunk of chunks) {
    all.set(chunk, offset)
    offset += chunk.byteLength
  }
  return all
}
