import type { SqlQueryable } from '@tessera/db/sql'
import type { AuthConfig } from './config.ts'
import { emulatorSchema } from './emulator-schema.ts'
import { GoTrueError } from './errors.ts'
import type { EmailType, MailboxStore, MailMessage } from './mailbox-store.ts'
import type { OneTimeTokenType } from './one-time-tokens.ts'
import { issueOneTimeToken } from './one-time-tokens.ts'

const tokenTypeFor: Record<EmailType, OneTimeTokenType> = {
  signup: 'confirmation_token',
  // GoTrue sends magic links with the recovery token.
  magiclink: 'recovery_token',
  recovery: 'recovery_token',
  email_change: 'email_change_token_new',
}

interface Wording {
  subject: string
  heading: string
  lead: string
  action: string
}

const wording: Record<EmailType, Wording> = {
  signup: {
    subject: 'Confirm Your Email',
    heading: 'Confirm your email address',
    lead: 'Thanks for signing up. Confirm this address to finish creating your account.',
    action: 'Confirm my email',
  },
  magiclink: {
    subject: 'Your Magic Link',
    heading: 'Your sign-in link',
    lead: 'Use this link to sign in. It works once.',
    action: 'Sign in',
  },
  recovery: {
    subject: 'Reset Your Password',
    heading: 'Reset your password',
    lead: 'Someone asked to reset the password of this account. If it was you, choose a new password with this link.',
    action: 'Choose a new password',
  },
  email_change: {
    subject: 'Confirm Email Change',
    heading: 'Confirm your new email address',
    lead: 'Confirm that this address should replace the old one on your account.',
    action: 'Confirm the change',
  },
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char,
  )

interface LinkValues {
  siteUrl: string
  tokenHash: string
  type: EmailType
  redirectTo: string
  token: string
  email: string
  confirmationUrl: string
}

/** Fills a Supabase-style link template; values placed in a query string are URL-encoded. */
export function renderLinkTemplate(template: string, values: LinkValues): string {
  const replacements: Record<string, string> = {
    SiteURL: values.siteUrl,
    ConfirmationURL: values.confirmationUrl,
    TokenHash: encodeURIComponent(values.tokenHash),
    Type: encodeURIComponent(values.type),
    RedirectTo: encodeURIComponent(values.redirectTo),
    Token: encodeURIComponent(values.token),
    Email: encodeURIComponent(values.email),
  }
  return template.replace(
    /\{\{\s*\.(\w+)\s*\}\}/g,
    (placeholder, name: string) => replacements[name] ?? placeholder,
  )
}

export interface SendEmailInput {
  type: EmailType
  userId: string
  to: string
  /** Already checked against the allow list. */
  redirectTo: string
}

export interface Mailer {
  /**
   * Issues the email's one-time token and stores the email in the mailbox, inside the caller's
   * transaction; refuses with 429 `over_email_send_rate_limit` when this address got this kind of
   * email too recently.
   */
  send(tx: SqlQueryable, input: SendEmailInput): Promise<MailMessage>
}

export function createMailer(config: AuthConfig, mailbox: MailboxStore): Mailer {
  return {
    async send(tx, input) {
      const now = config.clock.now()
      const to = input.to.toLowerCase()
      await enforceRateLimit(tx, config, to, input.type, now)
      const { otp, tokenHash } = await issueOneTimeToken(tx, {
        userId: input.userId,
        type: tokenTypeFor[input.type],
        relatesTo: to,
        now,
      })
      const confirmationUrl = `${config.jwtIssuer}/verify?token=${encodeURIComponent(tokenHash)}&type=${input.type}&redirect_to=${encodeURIComponent(input.redirectTo)}`
      const link = renderLinkTemplate(config.emailLinkTemplate, {
        siteUrl: config.siteUrl,
        tokenHash,
        type: input.type,
        redirectTo: input.redirectTo,
        token: otp,
        email: to,
        confirmationUrl,
      })
      const words = wording[input.type]
      const minutes = Math.round(config.otpExpirySeconds / 60)
      const text = [
        words.heading,
        '',
        words.lead,
        '',
        `${words.action}: ${link}`,
        '',
        `Or enter this code: ${otp}`,
        '',
        `The link and the code expire in ${minutes} minutes. If you did not ask for this email, you can ignore it.`,
      ].join('\n')
      const html = `<!doctype html>
<html lang="en"><body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1a1a1a; max-width: 32rem; margin: 0 auto; padding: 1rem;">
<h1 style="font-size: 1.4rem;">${escapeHtml(words.heading)}</h1>
<p>${escapeHtml(words.lead)}</p>
<p><a href="${escapeHtml(link)}" style="display: inline-block; padding: 0.75rem 1.25rem; background: #2f4fd8; color: #fff; border-radius: 0.5rem; text-decoration: none;">${escapeHtml(words.action)}</a></p>
<p>Or enter this code: <strong style="font-size: 1.25rem; letter-spacing: 0.2em;">${otp}</strong></p>
<p style="color: #555; font-size: 0.9rem;">The link and the code expire in ${minutes} minutes. If you did not ask for this email, you can ignore it.</p>
</body></html>`
      return mailbox.deliver(tx, {
        to,
        from: config.mailFrom,
        subject: words.subject,
        text,
        html,
        links: [link],
        type: input.type,
        token_hash: tokenHash,
        otp,
        redirect_to: input.redirectTo,
        user_id: input.userId,
        created_at: now,
      })
    },
  }
}

async function enforceRateLimit(
  tx: SqlQueryable,
  config: AuthConfig,
  address: string,
  type: EmailType,
  now: Date,
): Promise<void> {
  if (config.emailRateLimitSeconds > 0) {
    const { rows } = await tx.query<{ last_sent_at: Date }>(
      `select last_sent_at from ${emulatorSchema}.email_sends where address = $1 and email_type = $2 for update`,
      [address, type],
    )
    const last = rows[0]?.last_sent_at
    if (last !== undefined) {
      const waitMs = last.getTime() + config.emailRateLimitSeconds * 1000 - now.getTime()
      if (waitMs > 0) {
        throw new GoTrueError(
          429,
          'over_email_send_rate_limit',
          `For security purposes, you can only request this after ${Math.ceil(waitMs / 1000)} seconds.`,
        )
      }
    }
  }
  await tx.query(
    `insert into ${emulatorSchema}.email_sends (address, email_type, last_sent_at) values ($1, $2, $3)
     on conflict (address, email_type) do update set last_sent_at = excluded.last_sent_at`,
    [address, type, now],
  )
}
