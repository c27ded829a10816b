import type { Context } from 'hono'
import type { AppEnv } from '../../http/app-env.ts'
import type { Logger } from '../../platform/logger.ts'
import { eventStream } from '../../platform/sse.ts'
import type { Assistant, AnswerSink, PreparedSend } from './assistant.ts'

/**
 * The SSE response of a prepared send (a send, an edit or a regenerate): its answer streamed by
 * `runSend`. Every refusal came before, as a JSON error; from here failures are `error` events.
 */
export function answerResponse(
  c: Context<AppEnv>,
  deps: { assistant: Assistant; logger: Logger },
  prepared: PreparedSend,
): Promise<Response> {
  // Proxies such as nginx buffer responses unless told not to; an answer must flow.
  c.header('X-Accel-Buffering', 'no')
  for (const [name, value] of Object.entries(prepared.rateLimitHeaders ?? {})) c.header(name, value)
  return eventStream(
    c,
    async (stream) => {
      const sink: AnswerSink = {
        send: (event, data) => stream.send({ event, data: JSON.stringify(data) }),
        // Closed connection or aborted request (Stop): either way nobody reads on.
        get gone() {
          return stream.aborted
        },
        onGone: (listener) => stream.onAbort(listener),
      }
      await deps.assistant.runSend(prepared, sink)
    },
    (error) =>
      deps.logger.error('an answer stream failed', { error, requestId: prepared.requestId }),
  )
}
