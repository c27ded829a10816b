import { isAbort } from '@tessera/plugin-react/api-error'
import type { ChatStreamEvent } from '../../lib/assistant-api.ts'
import { chatErrorOf, describeChatError } from '../../lib/chat-errors.ts'
import {
  applyStreamEvent,
  failSend,
  markStopped,
  type SendInFlight,
  type ThreadWriter,
} from './stream-events.ts'

export interface StreamSendOptions {
  writer: ThreadWriter
  /** The conversation the send is in. */
  id: string
  /** The send; its `assistantId` is set once the server names the answer. */
  send: SendInFlight
  /** The send's events, ending by throwing an abort when the stream is aborted. */
  events: AsyncIterable<ChatStreamEvent>
  /** Whether the person pressed Stop, which is told apart from a dropped connection. */
  stoppedByPerson: () => boolean
  /** Whether the page went away, which ends every stream and shows nothing. */
  detached: () => boolean
}

/** Reads a send's stream to its end, applying each event; says whether Stop ended it. */
export async function streamSend(options: StreamSendOptions): Promise<{ stopped: boolean }> {
  const { writer, id, send } = options
  try {
    for await (const event of options.events) {
      send.assistantId = applyStreamEvent(writer, id, send, event)
      if (event.type === 'done' || event.type === 'error') return { stopped: false }
    }
    // The stream closed without `done` or `error`: the connection dropped mid-answer.
    failSend(writer, id, send, chatErrorOf('answer_interrupted', '', null))
  } catch (error) {
    if (isAbort(error) && options.stoppedByPerson()) {
      writer.flush()
      markStopped(writer, id, send.assistantId)
      return { stopped: true }
    }
    if (!(isAbort(error) && options.detached())) {
      failSend(writer, id, send, describeChatError(error, 'send'), error)
    }
  }
  return { stopped: false }
}
