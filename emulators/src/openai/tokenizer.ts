/**
 * A deterministic stand-in for a BPE tokenizer: a word (at most 8 letters or digits) or a single
 * punctuation mark, each carrying the whitespace before it. The tokens partition the text exactly,
 * so streaming one token per chunk reproduces the answer byte for byte and counts always add up.
 */
const TOKEN_PATTERN = /\s*[\p{L}\p{M}\p{N}_]{1,8}|\s*[^\s\p{L}\p{M}\p{N}_]|\s+/gu

/** Split text into tokens whose concatenation is the text itself. */
export function tokenize(text: string): string[] {
  return text.match(TOKEN_PATTERN) ?? []
}

/** Number of tokens in a text. */
export function countTokens(text: string): number {
  return tokenize(text).length
}

/** What every message costs on top of its content (role, separators), as OpenAI documents. */
export const TOKENS_PER_MESSAGE = 3
/** An extra token when a message carries a `name`. */
export const TOKENS_PER_NAME = 1
/** Every reply is primed with `<|start|>assistant<|message|>`. */
export const TOKENS_PER_REPLY = 3

export interface CountableMessage {
  readonly text: string
  readonly name?: string | undefined
}

/** Prompt tokens for a list of messages: content plus a small fixed overhead per message. */
export function countPromptTokens(messages: readonly CountableMessage[]): number {
  let total = TOKENS_PER_REPLY
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE + countTokens(message.text)
    if (message.name !== undefined) total += TOKENS_PER_NAME + countTokens(message.name)
  }
  return total
}
