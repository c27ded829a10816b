import type {
  ChatMessage,
  ChatStreamEventName,
  chatStreamEventSchemas,
  Conversation,
  ConversationPage,
  ConversationResponse,
  Usage,
  UsageReport,
} from '@tessera/contracts/assistant'
import type { StopAnswerResponse } from '@tessera/contracts/assistant-live'
import type { Platform } from '@tessera/contracts/platform'
import type { AssistantModel } from '@tessera/contracts/plan-values'
import type { Attachment } from '@tessera/contracts/attachments'
import { readSse } from './sse.ts'

type Schemas = typeof chatStreamEventSchemas

/** One event of a send's answer stream, typed from the contract's schemas (types only: no zod here). */
export type ChatStreamEvent = {
  [Name in ChatStreamEventName]: { type: Name; data: ReturnType<Schemas[Name]['parse']> }
}[ChatStreamEventName]

const streamEventNames: ReadonlySet<string> = new Set<ChatStreamEventName>([
  'message',
  'delta',
  'usage',
  'done',
  'error',
])

/** How many conversations one page of the list holds. */
export const CONVERSATION_PAGE_SIZE = 20

/** What a send carries besides its text. */
export interface SendOptions {
  /** The model to answer with; absent: the conversation's own, or the plan's default. */
  model?: AssistantModel | undefined
  /** Files uploaded for this message (attachments/). */
  attachments?: readonly Attachment[]
}

const base = '/api/assistant'
const conversationPath = (id: string) => `${base}/conversations/${encodeURIComponent(id)}`
const messagePath = (id: string, messageId: string) =>
  `${conversationPath(id)}/messages/${encodeURIComponent(messageId)}`

/** The events of an answer's SSE response (a send, an edit or a regenerate). */
async function* answerEvents(response: Response): AsyncGenerator<ChatStreamEvent> {
  if (response.body === null) throw new TypeError('The answer came without a body.')
  for await (const event of readSse(response.body)) {
    // Events a newer BFF may add are skipped rather than failing the answer.
    if (!streamEventNames.has(event.event)) continue
    yield { type: event.event, data: JSON.parse(event.data) } as ChatStreamEvent
  }
}
const usageReportPath = (
  workspaceId: string,
  range: { from?: string; to?: string },
  format: 'json' | 'csv' = 'json',
) => {
  const query = new URLSearchParams({ workspace: workspaceId, format })
  if (range.from !== undefined) query.set('from', range.from)
  if (range.to !== undefined) query.set('to', range.to)
  return `${base}/usage?${query.toString()}`
}

/**
 * The assistant's BFF routes. Every request goes through the platform's `api.fetch`, so it carries
 * the session cookie and the CSRF header, and a failure arrives as an `ApiError` with its
 * catalogue code. The BFF is ours and validates what it sends, so bodies are trusted here.
 */
export function createAssistantApi(platform: Platform) {
  const json = async <T>(path: string, init?: RequestInit): Promise<T> =>
    (await (await platform.api.fetch(path, init)).json()) as T

  return {
    listConversations(cursor: string | null, limit = CONVERSATION_PAGE_SIZE) {
      const query = new URLSearchParams({ limit: String(limit) })
      if (cursor !== null) query.set('cursor', cursor)
      return json<ConversationPage>(`${base}/conversations?${query.toString()}`)
    },

    async createConversation(title?: string): Promise<Conversation> {
      const body = await json<ConversationResponse>(`${base}/conversations`, {
        method: 'POST',
        body: JSON.stringify(title === undefined ? {} : { title }),
      })
      return body.conversation
    },

    async renameConversation(id: string, title: string): Promise<Conversation> {
      const body = await json<ConversationResponse>(conversationPath(id), {
        method: 'PATCH',
        body: JSON.stringify({ title }),
      })
      return body.conversation
    },

    /** Shares the author's conversation with its team workspace, or stops sharing it. */
    async shareConversation(id: string, shared: boolean): Promise<Conversation> {
      const body = await json<ConversationResponse>(conversationPath(id), {
        method: 'PATCH',
        body: JSON.stringify({ shared }),
      })
      return body.conversation
    },

    async deleteConversation(id: string): Promise<void> {
      await platform.api.fetch(conversationPath(id), { method: 'DELETE' })
    },

    listMessages(id: string) {
      return json<{ conversation: Conversation; messages: ChatMessage[] }>(
        `${conversationPath(id)}/messages`,
      )
    },

    /** Asks the BFF to stop the answers streaming in a conversation, started in any tab. */
    async stopAnswers(id: string): Promise<StopAnswerResponse> {
      return json<StopAnswerResponse>(`${conversationPath(id)}/stop`, {
        method: 'POST',
        body: '{}',
      })
    },

    usage() {
      return json<Usage>(`${base}/usage`)
    },

    /** A team's usage per member, model and day (owners and admins). */
    usageReport(workspaceId: string, range: { from?: string; to?: string } = {}) {
      return json<UsageReport>(usageReportPath(workspaceId, range))
    },

    /** The CSV of the same report, as a file to save. */
    async usageReportCsv(workspaceId: string, range: { from?: string; to?: string } = {}) {
      const response = await platform.api.fetch(usageReportPath(workspaceId, range, 'csv'))
      return response.blob()
    },

    /** Sets a member's monthly tokens from the pool (null: no cap). */
    async setMemberCap(workspaceId: string, userId: string, monthlyTokens: number | null) {
      await platform.api.fetch(`/api/workspaces/${workspaceId}/members/${userId}/cap`, {
        method: 'PUT',
        body: JSON.stringify({ monthlyTokens }),
      })
    },

    /**
     * Sends a message and yields its answer as it streams. `fetch` with a stream reader rather
     * than `EventSource`, which cannot POST. A refusal before the stream starts (a 429, a 422)
     * throws the `ApiError`; aborting `signal` (Stop) makes the iteration throw an AbortError.
     */
    async *sendMessage(
      conversationId: string,
      content: string,
      signal: AbortSignal,
      options: SendOptions = {},
    ): AsyncGenerator<ChatStreamEvent> {
      const { model, attachments = [] } = options
      const attachmentIds = attachments.map((attachment) => attachment.id)
      const response = await platform.api.fetch(`${conversationPath(conversationId)}/messages`, {
        method: 'POST',
        body: JSON.stringify({
          content,
          ...(model === undefined ? {} : { model }),
          ...(attachmentIds.length > 0 ? { attachmentIds } : {}),
        }),
        headers: { accept: 'text/event-stream' },
        signal,
      })
      yield* answerEvents(response)
    },

    /** Edits one of the user's questions: a new version, its answer streamed as a send's (decision 031). */
    async *editMessage(
      conversationId: string,
      messageId: string,
      content: string,
      signal: AbortSignal,
    ): AsyncGenerator<ChatStreamEvent> {
      yield* answerEvents(
        await platform.api.fetch(`${messagePath(conversationId, messageId)}/edit`, {
          method: 'POST',
          body: JSON.stringify({ content }),
          headers: { accept: 'text/event-stream' },
          signal,
        }),
      )
    },

    /** Regenerates an answer: a new version of it, streamed as a send's. */
    async *regenerateMessage(
      conversationId: string,
      messageId: string,
      signal: AbortSignal,
    ): AsyncGenerator<ChatStreamEvent> {
      yield* answerEvents(
        await platform.api.fetch(`${messagePath(conversationId, messageId)}/regenerate`, {
          method: 'POST',
          body: '{}',
          headers: { accept: 'text/event-stream' },
          signal,
        }),
      )
    },

    /** Shows one version of a message; answers the conversation's messages as they now read. */
    showVersion(conversationId: string, messageId: string) {
      return json<{ conversation: Conversation; messages: ChatMessage[] }>(
        `${messagePath(conversationId, messageId)}/active`,
        { method: 'PUT', body: '{}' },
      )
    },
  }
}

export type AssistantApi = ReturnType<typeof createAssistantApi>
