import { ApiError, type ErrorCode } from '@tessera/contracts'
import type { ChatMessage, Conversation, Usage } from '@tessera/contracts/assistant'

/** One send's answer, written by the test: events go out as they are pushed. */
export interface FakeStream {
  content: string
  conversationId: string
  /** Sends the `message` event with stored copies of both messages (and returns the answer's). */
  start(): ChatMessage
  delta(text: string): void
  usage(totalTokens: number): void
  done(): void
  /** An `error` event; the answer is stored as partial (if text came) or failed. */
  fail(code: ErrorCode, message?: string): void
  /** The connection drops: no `done`, no `error`. */
  cut(): void
  /** Whether the page aborted the request (Stop, leaving). */
  aborted(): boolean
}

export interface FakeAssistantBffOptions {
  conversations?: Conversation[]
  messages?: Record<string, ChatMessage[]>
  usage?: Partial<Usage>
  pageSize?: number
}

let ids = 0
const nextId = (prefix: string) => `${prefix}-${++ids}`
const iso = (minutesAgo: number) =>
  new Date(Date.UTC(2026, 10, 22, 12, 0) - minutesAgo * 60_000).toISOString()

export function conversation(id: string, title: string, minutesAgo = 0): Conversation {
  return { id, title, createdAt: iso(minutesAgo + 60), updatedAt: iso(minutesAgo) }
}

export function message(
  role: 'user' | 'assistant',
  content: string,
  overrides: Partial<ChatMessage> = {},
): ChatMessage {
  return {
    id: nextId(role),
    role,
    content,
    status: 'complete',
    model: role === 'assistant' ? 'gpt-4o-mini' : null,
    usage: null,
    error: null,
    createdAt: iso(0),
    ...overrides,
  }
}

/**
 * An in-memory assistant BFF behind `platform.api.fetch`: the routes of
 * `contracts/src/assistant.ts`, failures thrown as `ApiError`s as the platform throws them, and
 * each send's SSE answer written step by step by the test through `streams`.
 */
export function fakeAssistantBff(options: FakeAssistantBffOptions = {}) {
  const conversations = [...(options.conversations ?? [])]
  const messages: Record<string, ChatMessage[]> = { ...options.messages }
  const usage: Usage = {
    used: 12_400,
    reserved: 0,
    limit: 50_000,
    periodStart: '2026-11-01T00:00:00.000Z',
    periodEnd: '2026-12-01T00:00:00.000Z',
    ...options.usage,
  }
  const pageSize = options.pageSize ?? 20
  const calls: { method: string; path: string; body: unknown }[] = []
  const streams: FakeStream[] = []
  /** The next sends are refused before streaming (a plain JSON error, as the BFF does). */
  const refusals: ApiError[] = []
  const waiting = new Set<(stream: FakeStream) => void>()

  const encoder = new TextEncoder()

  function openStream(
    conversationId: string,
    content: string,
    signal: AbortSignal | null,
  ): Response {
    let controller!: ReadableStreamDefaultController<Uint8Array>
    let closed = false
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c
      },
    })
    const write = (event: string, data: unknown) => {
      if (closed) return
      controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`))
    }
    const close = () => {
      if (closed) return
      closed = true
      controller.close()
    }
    let assistant: ChatMessage | null = null
    const stored = () => messages[conversationId] ?? (messages[conversationId] = [])
    signal?.addEventListener('abort', () => {
      if (closed) return
      closed = true
      if (assistant) {
        assistant = { ...assistant, status: 'partial', error: null }
        const list = stored()
        list[list.length - 1] = assistant
      }
      controller.error(new DOMException('The operation was aborted.', 'AbortError'))
    })
    const stream: FakeStream = {
      content,
      conversationId,
      start() {
        const user = message('user', content)
        assistant = message('assistant', '', { status: 'streaming', model: 'gpt-4o-mini' })
        stored().push(user, assistant)
        const index = conversations.findIndex((c) => c.id === conversationId)
        const current = conversations[index]
        if (current) {
          const renamed = {
            ...current,
            title: current.title === 'New conversation' ? content.slice(0, 40) : current.title,
            updatedAt: new Date().toISOString(),
          }
          conversations.splice(index, 1)
          conversations.unshift(renamed)
        }
        write('message', { user, assistant, conversation: conversations[0] })
        return assistant
      },
      delta(text) {
        if (assistant) assistant = { ...assistant, content: assistant.content + text }
        write('delta', { text })
      },
      usage(totalTokens) {
        write('usage', {
          promptTokens: 0,
          completionTokens: totalTokens,
          totalTokens,
          estimated: false,
        })
      },
      done() {
        if (assistant === null) throw new Error('done before start')
        assistant = {
          ...assistant,
          status: 'complete',
          usage: { promptTokens: 10, completionTokens: 20, totalTokens: 30, estimated: false },
        }
        const list = stored()
        list[list.length - 1] = assistant
        write('done', { message: assistant })
        close()
      },
      fail(code, text) {
        const catalogue = new ApiError(code)
        if (assistant) {
          assistant = {
            ...assistant,
            status: assistant.content === '' ? 'failed' : 'partial',
            error: { code, message: text ?? catalogue.message },
          }
          const list = stored()
          list[list.length - 1] = assistant
        }
        write('error', {
          code,
          message: text ?? catalogue.message,
          requestId: 'req-stream',
          assistant,
        })
        close()
      },
      cut() {
        close()
      },
      aborted: () => signal?.aborted ?? false,
    }
    streams.push(stream)
    for (const resolve of [...waiting]) resolve(stream)
    waiting.clear()
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
  }

  async function fetch(input: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(input, 'http://localhost:8787')
    const method = (init.method ?? 'GET').toUpperCase()
    const body: unknown = typeof init.body === 'string' ? JSON.parse(init.body) : undefined
    calls.push({ method, path: `${url.pathname}${url.search}`, body })
    const path = url.pathname
    const conversationMatch = /^\/api\/assistant\/conversations\/([^/]+)(\/messages)?$/.exec(path)
    const id =
      conversationMatch?.[1] === undefined ? null : decodeURIComponent(conversationMatch[1])

    if (method === 'GET' && path === '/api/assistant/usage') return Response.json(usage)
    // Stop (decision 032): the request to stop; the streams here end by their abort.
    const stopMatch = /^\/api\/assistant\/conversations\/([^/]+)\/stop$/.exec(path)
    if (method === 'POST' && stopMatch !== null) {
      const streaming = streams.filter((stream) => stream.conversationId === stopMatch[1]).length
      return Response.json({ streaming: Math.min(streaming, 1) }, { status: 202 })
    }
    if (method === 'GET' && path === '/api/assistant/conversations') {
      const cursor = url.searchParams.get('cursor')
      const start = cursor === null ? 0 : Number(cursor)
      const page = conversations.slice(start, start + pageSize)
      const next = start + pageSize < conversations.length ? String(start + pageSize) : null
      return Response.json({ conversations: page, nextCursor: next })
    }
    if (method === 'POST' && path === '/api/assistant/conversations') {
      const created = conversation(nextId('c'), 'New conversation')
      conversations.unshift(created)
      return Response.json({ conversation: created }, { status: 201 })
    }
    if (id !== null) {
      const found = conversations.find((c) => c.id === id)
      if (found === undefined) throw new ApiError('not_found', { requestId: 'req-404' })
      if (conversationMatch?.[2] === undefined) {
        if (method === 'PATCH') {
          const title = String((body as { title: string }).title)
          const renamed = { ...found, title }
          conversations.splice(conversations.indexOf(found), 1, renamed)
          return Response.json({ conversation: renamed })
        }
        if (method === 'DELETE') {
          conversations.splice(conversations.indexOf(found), 1)
          return new Response(null, { status: 204 })
        }
      } else if (method === 'GET') {
        return Response.json({ conversation: found, messages: messages[id] ?? [] })
      } else if (method === 'POST') {
        const refusal = refusals.shift()
        if (refusal) throw refusal
        const content = String((body as { content: string }).content)
        return openStream(id, content, init.signal ?? null)
      }
    }
    throw new Error(`fake assistant BFF: no route for ${method} ${path}`)
  }

  return {
    fetch,
    calls,
    streams,
    usage,
    conversations,
    /** Each conversation's stored messages, oldest first (a test may store as the BFF would). */
    messages,
    /** The next send is refused with this catalogue error before any stream. */
    refuseNext(code: ErrorCode, details?: Record<string, unknown>, message?: string) {
      refusals.push(
        new ApiError(code, {
          requestId: 'req-refused',
          ...(details ? { details } : {}),
          ...(message === undefined ? {} : { message }),
        }),
      )
    },
    /** The next stream the page opens. */
    nextStream(): Promise<FakeStream> {
      return new Promise((resolve) => waiting.add(resolve))
    },
    callsTo(method: string, path: string) {
      return calls.filter((call) => call.method === method && call.path.split('?')[0] === path)
    },
  }
}

export type FakeAssistantBff = ReturnType<typeof fakeAssistantBff>
