import { z } from 'zod/mini'

/**
 * The error catalogue: every error the BFF can return, with its HTTP status and a sentence for
 * people. `docs/errors.md` lists the same table; a test keeps the two in step.
 */
export const errorCatalogue = {
  validation_failed: {
    status: 422,
    message:
      'Some of the information sent was not valid. Check the highlighted fields and try again.',
  },
  unauthenticated: { status: 401, message: 'You are not signed in. Sign in and try again.' },
  session_revoked: {
    status: 401,
    message: 'You were signed out on this device. Sign in again to continue.',
  },
  session_expired: {
    status: 401,
    message: 'Your session ended. Sign in again to continue.',
  },
  invalid_credentials: {
    status: 401,
    message: 'The email address or password is not correct.',
  },
  forbidden: { status: 403, message: 'You do not have permission to do that.' },
  csrf_failed: {
    status: 403,
    message: 'This request did not come from the Tessera app. Reload the page and try again.',
  },
  email_not_confirmed: {
    status: 403,
    message: 'Confirm your email address first: open the link in the email we sent you.',
  },
  not_found: { status: 404, message: 'There is nothing at this address.' },
  method_not_allowed: {
    status: 405,
    message: 'This address does not accept that kind of request.',
  },
  link_expired: {
    status: 410,
    message: 'This link has expired or has already been used. Ask for a new one.',
  },
  weak_password: {
    status: 422,
    message: 'Choose a stronger password.',
  },
  conflict: {
    status: 409,
    message: 'This was changed by someone else at the same time. Reload and try again.',
  },
  email_taken: { status: 409, message: 'An account already uses this email address.' },
  payload_too_large: {
    status: 413,
    message: 'The request is too large. Send less data at once.',
  },
  unsupported_media_type: {
    status: 415,
    message: 'The request must be sent as JSON (Content-Type: application/json).',
  },
  plan_required: { status: 402, message: 'Your plan does not include this. Upgrade to continue.' },
  rate_limited: {
    status: 429,
    message: 'Too many requests in a short time. Wait a moment and try again.',
  },
  quota_exceeded: {
    status: 429,
    message: 'You have used all of your plan’s allowance for this month. Upgrade to continue.',
  },
  internal: {
    status: 500,
    message:
      'Something went wrong on our side. Try again; if it keeps happening, quote the reference.',
  },
  upstream_unavailable: {
    status: 503,
    message: 'A service we depend on is not answering. Try again in a minute.',
  },
  upstream_timeout: {
    status: 504,
    message: 'A service we depend on took too long to answer. Try again in a minute.',
  },
  already_subscribed: {
    status: 409,
    message: 'You already have a subscription. Change or cancel it from the billing page.',
  },
  webhook_signature_invalid: {
    status: 400,
    message: 'The webhook signature is missing, does not match, or is too old.',
  },
  content_flagged: {
    status: 422,
    message: 'Your message was flagged by the content filter. Rephrase it and try again.',
  },
  model_busy: {
    status: 503,
    message: 'The AI model is busy right now. Wait a moment and try again.',
  },
  answer_interrupted: {
    status: 502,
    message: 'The answer was cut off before it finished. What arrived is kept; try again.',
  },
  plugin_unavailable: {
    status: 502,
    message: 'This feature’s service is not answering. Try again in a minute.',
  },
  plugin_timeout: {
    status: 504,
    message: 'This feature’s service took too long to answer. Try again in a minute.',
  },
  workspace_role_required: {
    status: 403,
    message:
      'Your role in this workspace does not allow that. Ask one of its owners or admins to do it.',
  },
  last_owner: {
    status: 409,
    message:
      'A workspace needs at least one owner. Make another member an owner first, then try again.',
  },
  personal_workspace: {
    status: 409,
    message:
      'A personal workspace is yours alone: it has no other members or invites and cannot be left. Create a team workspace instead.',
  },
  already_member: {
    status: 409,
    message:
      'This person is already a member of the workspace. Change their role in the member list instead.',
  },
  already_invited: {
    status: 409,
    message:
      'This address already has a pending invite to the workspace. Resend that invite, or revoke it first.',
  },
  invite_expired: {
    status: 410,
    message:
      'This invite has expired. Ask the person who invited you to resend it from the workspace.',
  },
  invite_used: {
    status: 410,
    message:
      'This invite was already accepted, declined or revoked. Ask the workspace for a new one if you still need it.',
  },
  invite_wrong_account: {
    status: 403,
    message:
      'This invite is for another email address. Sign in with the invited address, or ask for an invite to yours.',
  },
  member_cap_reached: {
    status: 429,
    message:
      'You have used all the tokens your team lets you use this month. Ask one of its owners or admins to raise your cap.',
  },
  team_quota_exceeded: {
    status: 429,
    message:
      'Your team has used all of its shared tokens for this month. Ask one of its owners or admins to add seats or upgrade.',
  },
  team_past_due: {
    status: 402,
    message:
      'Your team’s payment is past due, so nobody can send until it is fixed. Reading still works; ask an owner or admin.',
  },
  conversation_read_only: {
    status: 403,
    message:
      'Another member shared this conversation for reading. Only its author can send, rename or delete it.',
  },
  sharing_unavailable: {
    status: 409,
    message:
      'Only conversations in a team workspace can be shared. Switch to a team workspace to share with its members.',
  },
  message_not_editable: {
    status: 422,
    message: 'Only your own messages can be edited. To get a different answer, regenerate it.',
  },
  message_not_regenerable: {
    status: 422,
    message: 'Only an answer can be regenerated. To change a question, edit it.',
  },
  answer_in_progress: {
    status: 409,
    message:
      'An answer is still being written in this conversation. Wait for it to finish, or stop it, then try again.',
  },
  plugin_api_unmapped: {
    status: 422,
    message: 'This build declares an API that has no service here. Ask the operator to map it.',
  },
  plan_not_for_workspace: {
    status: 409,
    message:
      'The Team plan is bought for a team workspace, and Pro for your personal one. Switch workspace and try again.',
  },
  model_not_in_plan: {
    status: 403,
    message:
      'Your plan does not include this model. Upgrade your plan to use it, or pick one of your plan’s models.',
  },
  share_not_found: {
    status: 404,
    message:
      'This link no longer works: its author stopped sharing it, or it is mistyped. Ask them for a new link.',
  },
  seat_confirmation_required: {
    status: 409,
    message:
      'This invite needs one more paid seat. Confirm the extra seat to send it; it is charged when the invite is accepted.',
  },
  attachment_empty: {
    status: 422,
    message: 'This file is empty. Choose a file that has something in it.',
  },
  attachment_too_large: {
    status: 413,
    message:
      'This file is larger than your plan allows for one file. Attach a smaller file, or upgrade for larger ones.',
  },
  attachment_type_unsupported: {
    status: 415,
    message:
      'This kind of file cannot be attached. Attach an image (PNG, JPEG, WebP or GIF), a PDF or a text file.',
  },
  attachment_type_mismatch: {
    status: 415,
    message:
      'This file’s name says one kind of file but its content is another. Save it in the format its name says, or rename it.',
  },
  attachment_no_text: {
    status: 422,
    message:
      'No text could be read from this PDF (it may be scanned pages). Attach the pages as images, or a PDF with selectable text.',
  },
  attachment_name_invalid: {
    status: 422,
    message:
      'This file name cannot be used. Rename the file (at most 200 characters, no slashes or control characters) and try again.',
  },
  attachment_allowance_reached: {
    status: 429,
    message:
      'You have attached as much as your plan allows this month. Upgrade, or wait until next month.',
  },
  too_many_attachments: {
    status: 422,
    message:
      'This message has more attachments than your plan allows for one message. Remove some, or send them in another message.',
  },
  attachment_unavailable: {
    status: 409,
    message:
      'An attachment of this message was already sent, or is not yours. Attach the file again.',
  },
  attachment_text_too_long: {
    status: 422,
    message:
      'The text of these files is longer than the assistant can read with one message. Attach shorter files, or fewer at once.',
  },
} as const satisfies Record<string, { status: number; message: string }>

export type ErrorCode = keyof typeof errorCatalogue

export const errorCodes = Object.keys(errorCatalogue) as ErrorCode[]

/** One problem with one field of a request, as reported in `details.issues`. */
export const fieldIssueSchema = z.object({
  path: z.string(),
  message: z.string(),
})
export type FieldIssue = z.infer<typeof fieldIssueSchema>

/** The body of every error response from the BFF. */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.enum(errorCodes as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    requestId: z.string(),
    details: z.optional(z.record(z.string(), z.unknown())),
  }),
})
export type ErrorBody = z.infer<typeof errorBodySchema>

/** An error carrying a catalogue code: thrown in the BFF, rebuilt in the browser from a response. */
export class ApiError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly requestId: string | undefined
  readonly details: Record<string, unknown> | undefined

  constructor(
    code: ErrorCode,
    options: { message?: string; requestId?: string; details?: Record<string, unknown> } = {},
  ) {
    super(options.message ?? errorCatalogue[code].message)
    this.name = 'ApiError'
    this.code = code
    this.status = errorCatalogue[code].status
    this.requestId = options.requestId
    this.details = options.details
  }

  /** The field issues of a `validation_failed` error, empty for every other code. */
  get issues(): FieldIssue[] {
    const parsed = z.array(fieldIssueSchema).safeParse(this.details?.issues)
    return parsed.success ? parsed.data : []
  }
}

/** Whether a status/code pair is the one the catalogue gives that code. */
export function isCatalogued(code: string, status: number): code is ErrorCode {
  return code in errorCatalogue && errorCatalogue[code as ErrorCode].status === status
}
