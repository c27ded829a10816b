/**
 * Image and text parts of a user message, as Chat Completions takes them: the stand-in reads each
 * image's data URL (type and pixel size from its bytes) and counts each extra text part's words,
 * and its answer opens by saying so, so tests can check what the model was sent.
 */
import { z } from 'zod/mini'
import { OpenAiHttpError } from './errors.ts'

export const imagePartSchema = z.strictObject({
  type: z.literal('image_url'),
  image_url: z.strictObject({
    url: z.string().check(z.minLength(1)),
    detail: z.optional(z.enum(['auto', 'low', 'high'])),
  }),
})

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' | undefined } }

export interface SeenImage {
  format: 'PNG' | 'JPEG' | 'GIF' | 'WebP'
  width: number
  height: number
  detail: 'auto' | 'low' | 'high'
}

const u16be = (b: Uint8Array, at: number) => ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0)
const u16le = (b: Uint8Array, at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8)
const u24le = (b: Uint8Array, at: number) => u16le(b, at) | ((b[at + 2] ?? 0) << 16)
const text = (b: Uint8Array, at: number, length: number) =>
  String.fromCharCode(...b.subarray(at, at + length))

function sizeOf(b: Uint8Array): Omit<SeenImage, 'detail'> | null {
  if (text(b, 1, 3) === 'PNG' && text(b, 12, 4) === 'IHDR')
    return {
      format: 'PNG',
      width: u16be(b, 16) * 65536 + u16be(b, 18),
      height: u16be(b, 20) * 65536 + u16be(b, 22),
    }
  if (text(b, 0, 4) === 'GIF8') return { format: 'GIF', width: u16le(b, 6), height: u16le(b, 8) }
  if (text(b, 0, 4) === 'RIFF' && text(b, 8, 4) === 'WEBP') {
    const kind = text(b, 12, 4)
    if (kind === 'VP8X')
      return { format: 'WebP', width: 1 + u24le(b, 24), height: 1 + u24le(b, 27) }
    if (kind === 'VP8 ')
      return { format: 'WebP', width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff }
    if (kind === 'VP8L') {
      const [b1 = 0, b2 = 0, b3 = 0, b4 = 0] = b.subarray(21, 25)
      return {
        format: 'WebP',
        width: 1 + (((b2 & 0x3f) << 8) | b1),
        height: 1 + (((b4 & 0x0f) << 10) | (b3 << 2) | (b2 >> 6)),
      }
    }
    return null
  }
  if (b[0] === 0xff && b[1] === 0xd8) {
    let at = 2
    while (at + 9 < b.length && b[at] === 0xff) {
      const marker = b[at + 1] ?? 0
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker))
        return { format: 'JPEG', width: u16be(b, at + 7), height: u16be(b, at + 5) }
      at += 2 + u16be(b, at + 2)
    }
  }
  return null
}

/** An image part's picture, read from its data URL; OpenAI's 400s for what it cannot read. */
export function readImage(
  part: Extract<ContentPart, { type: 'image_url' }>,
  param: string,
): SeenImage {
  const match = /^data:image\/(png|jpeg|gif|webp);base64,([A-Za-z0-9+/]+={0,2})$/.exec(
    part.image_url.url,
  )
  if (match === null)
    throw new OpenAiHttpError(400, {
      message: part.image_url.url.startsWith('data:')
        ? 'Invalid image data URL: expected data:image/(png|jpeg|gif|webp);base64,….'
        : 'The Tessera OpenAI stand-in does not download image URLs: send the image as a base64 data URL.',
      param,
      code: 'invalid_image_url',
    })
  const seen = sizeOf(Buffer.from(match[2] ?? '', 'base64'))
  if (seen === null || seen.width === 0 || seen.height === 0)
    throw new OpenAiHttpError(400, {
      message: 'You uploaded an unsupported image. Please make sure your image is valid.',
      param,
      code: 'invalid_image_format',
    })
  return { ...seen, detail: part.image_url.detail ?? 'auto' }
}

/** Tokens an image costs, as OpenAI counts them for gpt-4o: 85 at low detail, plus 170 a 512-px tile otherwise. */
export function imageTokens(image: SeenImage): number {
  if (image.detail === 'low') return 85
  return 85 + 170 * Math.ceil(image.width / 512) * Math.ceil(image.height / 512)
}

const FILE_HEADING = /^Attached file "([^"\n]+)":\n\n/

/** The sentences an answer opens with about a message's images and extra text parts. */
export function describeParts(images: readonly SeenImage[], extraTexts: readonly string[]): string {
  const sentences = images.map(
    (image, index) =>
      `Image ${index + 1} is a ${image.format} image of ${image.width}×${image.height} pixels.`,
  )
  for (const part of extraTexts) {
    const heading = FILE_HEADING.exec(part)
    const body = heading === null ? part : part.slice(heading[0].length)
    const words = body.split(/\s+/).filter((word) => word !== '').length
    sentences.push(
      heading === null
        ? `A text part has ${words} words.`
        : `The file “${heading[1]}” has ${words} words.`,
    )
  }
  return sentences.join(' ')
}

export function messageText(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content
  return content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
}

/** The images of every message (read, so a bad one is a 400) and the last user message's parts. */
export function partsOf(request: {
  messages: readonly { role: string; content: string | ContentPart[] }[]
}): {
  images: SeenImage[]
  lastImages: SeenImage[]
  lastExtraTexts: string[]
} {
  const images: SeenImage[] = []
  let lastImages: SeenImage[] = []
  let lastExtraTexts: string[] = []
  request.messages.forEach((message, index) => {
    if (typeof message.content === 'string') {
      if (message.role === 'user') [lastImages, lastExtraTexts] = [[], []]
      return
    }
    const seen = message.content.flatMap((part, at) =>
      part.type === 'image_url' ? [readImage(part, `messages[${index}].content[${at}]`)] : [],
    )
    images.push(...seen)
    if (message.role === 'user') {
      lastImages = seen
      // The first text part is the message; the others are attached files' text.
      lastExtraTexts = message.content
        .flatMap((part) => (part.type === 'text' ? [part.text] : []))
        .slice(1)
    }
  })
  return { images, lastImages, lastExtraTexts }
}
