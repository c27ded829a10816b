/**
 * Reads a body of at most `limitBytes`, or null as soon as it passes the limit: nothing past the
 * limit is read or kept, whatever Content-Length said (an upload, a build file downloaded).
 */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  limitBytes: number,
): Promise<Uint8Array<ArrayBuffer> | null> {
  if (body === null) return new Uint8Array(new ArrayBuffer(0))
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > limitBytes) {
      await reader.cancel()
      return null
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(new ArrayBuffer(total))
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.byteLength
  }
  return bytes
}
