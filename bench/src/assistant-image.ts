/**
 * The assistant benchmark's image rounds: the first-token overhead of a send with an image
 * attached (issue 20), paired as the text rounds are — the same question and image straight to
 * the OpenAI stand-in (the image as a data URL part) and through the BFF (the image uploaded
 * first, untimed, then named by `attachmentIds`: the send reads it back from Storage and sends it
 * as a data URL). What it adds over the text rounds is the attachment's row, its download from
 * the private bucket and its base64 (docs/decisions/033).
 */
import { makePng } from '@tessera/bff/testing/files'

/** The image every round sends: 512 × 384, a few kilobytes as PNG. */
export const benchImage = makePng(512, 384)
export const benchImageDataUrl = `data:image/png;base64,${Buffer.from(benchImage).toString('base64')}`

export interface ImageRoundsResult {
  directMs: number[]
  bffMs: number[]
  overheads: number[]
  errors: number
}

/** Uploads the bench image through the BFF as `cookie`'s user; the attachment's id. */
export async function uploadBenchImage(bffUrl: string, cookie: string): Promise<string> {
  const response = await fetch(`${bffUrl}/api/assistant/attachments`, {
    method: 'POST',
    headers: {
      origin: bffUrl,
      'x-tessera-csrf': '1',
      'content-type': 'application/octet-stream',
      'x-attachment-name': 'bench.png',
      cookie,
    },
    body: benchImage as Uint8Array<ArrayBuffer>,
  })
  if (response.status !== 201)
    throw new Error(`uploading the bench image: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { attachment: { id: string } }).attachment.id
}

/**
 * `pairs` rounds (after `warmUp`), alternating which path goes first; each round's BFF send names
 * a freshly uploaded image (an attachment goes with one message).
 */
export async function imageRounds(options: {
  pairs: number
  warmUp: number
  upload: () => Promise<string>
  newConversation: () => Promise<string>
  direct: (question: string) => Promise<{ firstTokenMs: number | null; ok: boolean }>
  through: (
    conversationId: string,
    question: string,
    attachmentId: string,
  ) => Promise<{ firstTokenMs: number | null; ok: boolean; failure?: string }>
}): Promise<ImageRoundsResult> {
  const result: ImageRoundsResult = { directMs: [], bffMs: [], overheads: [], errors: 0 }
  for (let index = 0; index < options.pairs + options.warmUp; index += 1) {
    const [conversationId, attachmentId] = await Promise.all([
      options.newConversation(),
      options.upload(),
    ])
    const question = `Image ${index}: what does this picture show?`
    const paths = [
      () => options.direct(question),
      () => options.through(conversationId, question, attachmentId),
    ]
    const results: { firstTokenMs: number | null; ok: boolean; failure?: string }[] = []
    for (let step = 0; step < paths.length; step += 1) {
      const which = (index + step) % paths.length
      results[which] = await paths[which]!()
    }
    const [straight, through] = results
    if (!straight?.ok || !through?.ok) {
      result.errors += 1
      console.error(through?.failure ?? 'an image round failed')
      continue
    }
    if (index < options.warmUp || straight.firstTokenMs === null || through.firstTokenMs === null)
      continue
    result.directMs.push(straight.firstTokenMs)
    result.bffMs.push(through.firstTokenMs)
    result.overheads.push(through.firstTokenMs - straight.firstTokenMs)
  }
  return result
}
