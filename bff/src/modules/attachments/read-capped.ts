import { ApiError } from '@tessera/contracts'

/**
 * Reads a request body of at most `limitBytes`, refusing it (`attachment_too_large`) as soon as
 * it passes the limit: nothing past the limit is read or kept, whatever Content-Length said.
 */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  limitBytes: number,
): Promise<Uint8Array> {
  if (body === null) return new Uint8Array()
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > limitBytes) {
      await reader.cancel()
      throw new ApiError('attachment_too_large', { details: { limitBytes } })
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(total)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.byteLength
  }
  return bytes
}
