import type { ErrorCode } from '@tessera/contracts/errors'
import { asApiError, retryAfterOf } from '@tessera/plugin-react/api-error'
import { asUsage, quotaSentence } from './quota.ts'

/** The next steps an error can offer beside its sentence. */
export type ChatErrorAction = 'retry' | 'plans' | 'sign-in' | 'edit' | 'reload' | 'new-conversation'

/** A failure as the assistant page shows it: a sentence that says what to do next. */
export interface ChatError {
  /** The catalogue code, to act on (and `data-code`); null for a failure outside the catalogue. */
  code: ErrorCode | null
  message: string
  /** Shown as the reference for support, under the sentence. */
  requestId: string | null
  /** For `rate_limited`: how long to wait before trying again. */
  retryAfterSeconds: number | null
  actions: ChatErrorAction[]
}

/** Sentences for the codes a send or a conversation can fail with, each with its next step. */
const sentences: Partial<Record<ErrorCode, { message: string; actions: ChatErrorAction[] }>> = {
  quota_exceeded: {
    message:
      'You have used all the tokens your plan includes this month. Upgrade your plan to keep chatting.',
    actions: ['plans'],
  },
  plan_required: {
    message: 'Your plan does not include this. Upgrade your plan to use it.',
    actions: ['plans'],
  },
  model_busy: {
    message: 'The assistant is busy right now. Wait a moment, then try again.',
    actions: ['retry'],
  },
  upstream_timeout: {
    message:
      'The assistant took too long to start answering. Try again; if it keeps happening, wait a minute.',
    actions: ['retry'],
  },
  upstream_unavailable: {
    message: 'The assistant could not be reached. Check your connection, then try again.',
    actions: ['retry'],
  },
  answer_interrupted: {
    message:
      'The answer was cut off before it finished. What arrived is kept; try again for a full answer.',
    actions: ['retry'],
  },
  content_flagged: {
    message:
      'The content filter flagged your message, so it was not answered. Rephrase it and send it again.',
    actions: ['edit'],
  },
  payload_too_large: {
    message: 'The message is too long to send. Shorten it and send it again.',
    actions: ['edit'],
  },
  unauthenticated: {
    message: 'You are signed out. Sign in again to keep chatting; your conversations are saved.',
    actions: ['sign-in'],
  },
  session_revoked: {
    message:
      'You were signed out on this device. Sign in again to keep chatting; your conversations are saved.',
    actions: ['sign-in'],
  },
  csrf_failed: {
    message: 'This request did not come from the Tessera app. Reload the page and try again.',
    actions: ['reload'],
  },
  not_found: {
    message: 'This conversation no longer exists: it may have been deleted in another tab.',
    actions: ['new-conversation'],
  },
  internal: {
    message:
      'Something went wrong on our side. Try again; if it keeps happening, quote the reference below.',
    actions: ['retry'],
  },
}

/** "Try again in 42 seconds." */
export function waitSentence(seconds: number): string {
  if (seconds <= 0) return 'You can try again now.'
  return `Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`
}

/** A catalogue code and its server message, as an error event of the stream carries them. */
export function chatErrorOf(
  code: ErrorCode,
  serverMessage: string,
  requestId: string | null,
  details?: Record<string, unknown>,
): ChatError {
  if (code === 'rate_limited') {
    const seconds = retryAfterOf(details) ?? 10
    return {
      code,
      message: `You are sending messages faster than your plan allows. ${waitSentence(seconds)}`,
      requestId,
      retryAfterSeconds: seconds,
      actions: ['retry'],
    }
  }
  if (code === 'validation_failed') {
    const issues = details?.issues
    const first =
      Array.isArray(issues) && typeof (issues[0] as { message?: unknown })?.message === 'string'
        ? String((issues[0] as { message: string }).message)
        : null
    return {
      code,
      message: `${first ?? 'The message could not be sent as it is.'} Edit it and send it again.`,
      requestId,
      retryAfterSeconds: null,
      actions: ['edit'],
    }
  }
  if (code === 'model_not_in_plan') {
    // The BFF's sentence names the plan that includes the model: the upgrade to see.
    return {
      code,
      message: serverMessage,
      requestId,
      retryAfterSeconds: null,
      actions: ['plans', 'retry'],
    }
  }
  const usage = code === 'quota_exceeded' ? asUsage(details) : null
  if (usage !== null) {
    // The refusal's own numbers (holds in flight count): the same sentence the card shows.
    const { message, nothingLeft } = quotaSentence(usage)
    return {
      code,
      message,
      requestId,
      retryAfterSeconds: null,
      actions: nothingLeft ? ['plans'] : ['plans', 'new-conversation'],
    }
  }
  const known = sentences[code]
  return {
    code,
    message: known?.message ?? serverMessage,
    requestId,
    // A busy model may say how long to wait: Try again waits that long.
    retryAfterSeconds: code === 'model_busy' ? retryAfterOf(details) : null,
    actions: known?.actions ?? ['retry'],
  }
}

/**
 * Any failure of a request as the page shows it. A catalogue error keeps its code; anything else
 * (the connection dropped mid-answer, a body that was not JSON) is logged and said plainly.
 */
export function describeChatError(error: unknown, what: 'send' | 'load' = 'send'): ChatError {
  const apiError = asApiError(error)
  if (apiError !== null) {
    return chatErrorOf(
      apiError.code,
      apiError.message,
      apiError.requestId ?? null,
      apiError.details,
    )
  }
  console.error(`The assistant could not ${what === 'send' ? 'answer' : 'load'}`, error)
  return {
    code: null,
    message:
      what === 'send'
        ? 'The connection dropped before the answer finished. What arrived is kept; try again.'
        : 'This could not be loaded. Check your connection, then try again.',
    requestId: null,
    retryAfterSeconds: null,
    actions: ['retry'],
  }
}
