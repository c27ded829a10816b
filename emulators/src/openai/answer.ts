/**
 * Deterministic answers: the same conversation always gets the same words, readable enough to
 * look at in the UI, and plainly not from a real model.
 */

/** A user message starting with this prefix is answered with the rest of the message, verbatim. */
export const ECHO_PREFIX = '/echo '

export interface AnswerMessage {
  readonly role: string
  readonly text: string
}

export interface AnswerOptions {
  /** Prose sentences after the opening line (the list and closing line come on top). */
  readonly sentences: number
}

const STOP_WORDS = new Set(
  'about above after again also because been before being below between both could does doing down during each from further have having here into itself just more most once only other over same should some such than that their them then there these they this those through under until very what when where which while whom will with would your yours please tell explain write show give make'.split(
    ' ',
  ),
)

const CODE_REQUEST =
  /\b(code|coding|function|snippet|script|implement|implementation|regex|sql|typescript|javascript|python|program|class|api)\b/i

const SENTENCES: ReadonlyArray<(k: Keywords) => string> = [
  (k) => `The part that stands out is ${k.first}, so that is where this answer starts.`,
  () =>
    'This reply is assembled from your words by the Tessera stand-in, so the same conversation always gets the same answer.',
  (k) =>
    `A real model would weigh ${k.first} against ${k.second}; this one only pretends to, at a steady number of tokens per second.`,
  () =>
    'Streaming, usage counting and limits behave as they would with a hosted model, which is the point of running locally.',
  (k) =>
    `If ${k.second} matters more to you than ${k.first}, ask again with that word first and the answer will change.`,
  () => 'Nothing you type here leaves this machine.',
  (k) => `Treat anything said about ${k.third} as a placeholder rather than advice.`,
  () => 'Point OPENAI_BASE_URL at a real OpenAI-compatible server to get real answers.',
]

const LIST_ITEMS: ReadonlyArray<(k: Keywords) => string> = [
  (k) => `Start with **${k.first}**: it is the word your question leans on.`,
  (k) => `Check how **${k.second}** fits in before changing anything.`,
  (k) => `Keep **${k.third}** for later; it reads like a detail.`,
  () => 'Write down what a good answer would look like, then compare.',
  () => 'Try the smallest change that could work.',
]

interface Keywords {
  readonly first: string
  readonly second: string
  readonly third: string
  readonly all: readonly string[]
}

/** FNV-1a over UTF-16 code units: small, fast and stable across runs and platforms. */
export function hashText(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}

function extractKeywords(question: string): Keywords {
  const seen = new Set<string>()
  for (const word of question.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}-]*/gu) ?? []) {
    if (word.length >= 4 && !STOP_WORDS.has(word)) seen.add(word)
    if (seen.size === 3) break
  }
  const all = [...seen]
  const fallbacks = ['your question', 'the context', 'the details']
  return {
    first: all[0] ?? fallbacks[0]!,
    second: all[1] ?? fallbacks[1]!,
    third: all[2] ?? fallbacks[2]!,
    all,
  }
}

function summarise(question: string): string {
  const flat = question.replace(/\s+/g, ' ').trim()
  if (flat.length === 0) return 'nothing in particular'
  if (flat.length <= 120) return flat
  const cut = flat.slice(0, 120)
  const lastSpace = cut.lastIndexOf(' ')
  return `${lastSpace > 60 ? cut.slice(0, lastSpace) : cut}…`
}

function rotate<T>(items: readonly T[], start: number, count: number): T[] {
  const out: T[] = []
  for (let i = 0; i < count; i++) {
    const item = items[(start + i) % items.length]
    if (item !== undefined) out.push(item)
  }
  return out
}

function codeBlock(question: string, keywords: Keywords): string {
  const words = keywords.all.length > 0 ? keywords.all : ['answer']
  const name = `handle${words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')}`.replace(
    /[^\p{L}\p{N}]/gu,
    '',
  )
  if (/\bpython\b/i.test(question)) {
    return [
      '```python',
      `def handle_${words.join('_').replace(/[^\p{L}\p{N}_]/gu, '')}(value: str) -> str:`,
      `    # local model: a placeholder, not a solution`,
      '    return value.strip()',
      '```',
    ].join('\n')
  }
  if (/\bsql\b/i.test(question)) {
    return [
      '```sql',
      '-- local model: a placeholder, not a solution',
      'select id, created_at from answers order by created_at desc limit 10;',
      '```',
    ].join('\n')
  }
  return [
    '```ts',
    '// local model: a placeholder, not a solution',
    `export function ${name}(value: string): string {`,
    '  return value.trim()',
    '}',
    '```',
  ].join('\n')
}

/** The assistant's answer to a conversation, derived only from its messages. */
export function composeAnswer(messages: readonly AnswerMessage[], options: AnswerOptions): string {
  const lastUser =
    [...messages].reverse().find((m) => m.role === 'user') ?? messages[messages.length - 1]
  const question = lastUser?.text ?? ''
  if (question.startsWith(ECHO_PREFIX)) return question.slice(ECHO_PREFIX.length)

  const seed = hashText(messages.map((m) => `${m.role}\u0000${m.text}`).join('\u0001'))
  const keywords = extractKeywords(question)
  const prose = rotate(SENTENCES, seed % SENTENCES.length, Math.max(0, options.sentences)).map(
    (s) => s(keywords),
  )
  const items = rotate(LIST_ITEMS, (seed >>> 8) % LIST_ITEMS.length, 3).map((s) => s(keywords))

  const parts = [
    [`(local model) You asked about “${summarise(question)}”.`, ...prose].join(' '),
    ['Three things to check:', '', ...items.map((item) => `- ${item}`)].join('\n'),
  ]
  if (CODE_REQUEST.test(question))
    parts.push(`Here is a sketch:\n\n${codeBlock(question, keywords)}`)
  parts.push('_Written by the Tessera OpenAI stand-in, not a real model._')
  return parts.join('\n\n')
}
