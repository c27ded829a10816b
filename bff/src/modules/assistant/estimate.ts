/**
 * Token arithmetic without a tokenizer. A reservation needs a number that can only be too high
 * (the answer must fit whatever the model reports); a lost usage report needs a fair guess.
 */

/** One message as the model receives it. */
export interface PromptMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
  /** Attached files after the text: their text, or an image as a data URL (attachments). */
  parts?: readonly PromptPart[]
}

export type PromptPart = { type: 'text'; text: string } | { type: 'image'; dataUrl: string }

/**
 * Tokens an image sent at `detail: low` costs at most: OpenAI counts 85 for gpt-4o and gpt-4.1
 * and 2,833 for gpt-4o-mini, whatever its size. The estimate, when usage is lost, is the 85.
 */
export const IMAGE_TOKEN_BOUND = 2833
const IMAGE_TOKEN_ESTIMATE = 85

/** What a message's attached parts add to a prompt: `image` per image, the text's bytes as `text`. */
function partsCost(message: PromptMessage, image: number, text: (bytes: number) => number): number {
  let total = 0
  for (const part of message.parts ?? [])
    total += part.type === 'image' ? image : MESSAGE_OVERHEAD_BOUND + text(utf8Length(part.text))
  return total
}

/** What each message costs beyond its content (role and separators); OpenAI documents 3. */
export const MESSAGE_OVERHEAD_BOUND = 4
const MESSAGE_OVERHEAD = 3
/** Every answer is primed with `<|start|>assistant<|message|>`. */
const REPLY_PRIMING = 3
/** OpenAI's rule of thumb for English text. */
const BYTES_PER_TOKEN = 4

/** The length of `text` in UTF-8, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index)
    if (unit < 0x80) bytes += 1
    else if (unit < 0x800) bytes += 2
    else if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      // A surrogate pair is one code point of four bytes.
      bytes += 4
      index += 1
    } else bytes += 3
  }
  return bytes
}

/**
 * At least as many tokens as the prompt can have: byte-level BPE tokenizers (OpenAI's, and the
 * Llama family's byte fallback) never make a token of less than one byte.
 */
export function promptTokenBound(messages: readonly PromptMessage[]): number {
  let total = REPLY_PRIMING
  for (const message of messages)
    total +=
      MESSAGE_OVERHEAD_BOUND +
      utf8Length(message.content) +
      partsCost(message, IMAGE_TOKEN_BOUND, (bytes) => bytes)
  return total
}

/** What one send holds against the plan while it streams: the prompt's bound plus the longest answer. */
export function reservationFor(
  messages: readonly PromptMessage[],
  maxAnswerTokens: number,
): number {
  return promptTokenBound(messages) + maxAnswerTokens
}

/** A fair guess at the prompt's tokens, for when the model's usage report never came. */
export function estimatePromptTokens(messages: readonly PromptMessage[]): number {
  let total = REPLY_PRIMING
  for (const message of messages)
    total +=
      MESSAGE_OVERHEAD +
      Math.ceil(utf8Length(message.content) / BYTES_PER_TOKEN) +
      partsCost(message, IMAGE_TOKEN_ESTIMATE, (bytes) => Math.ceil(bytes / BYTES_PER_TOKEN))
  return total
}

/**
 * A fair guess at an answer's tokens: streams carry about one token per chunk, and a chunk is
 * never less than a token.
 */
export function estimateCompletionTokens(text: string, chunks: number): number {
  return Math.max(chunks, Math.ceil(utf8Length(text) / BYTES_PER_TOKEN))
}
