/** The invite email: plain text and the same in HTML, with the link and what it is for. */
import type { InviteRole } from '@tessera/contracts'

const escapeHtml = (value: string) =>
  value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')

export function inviteEmail(input: {
  link: string
  workspaceName: string
  inviter: string | null
  role: InviteRole
  expiresAt: Date
}): { subject: string; text: string; html: string } {
  const who = input.inviter ?? 'Someone'
  const until = new Date(input.expiresAt).toUTCString()
  const as = input.role === 'admin' ? 'an admin' : 'a member'
  const subject = `${who} invited you to ${input.workspaceName} on Tessera`
  const text = [
    `${who} invited you to join the workspace “${input.workspaceName}” on Tessera as ${as}.`,
    '',
    `Accept or decline: ${input.link}`,
    '',
    `The link works once, for this email address only, until ${until}. New to Tessera? Sign up with this address; the link brings you back to the invite.`,
    '',
    'If you did not expect this invite, ignore this email.',
  ].join('\n')
  const html = `<p>${escapeHtml(who)} invited you to join the workspace “${escapeHtml(
    input.workspaceName,
  )}” on Tessera as ${as}.</p>
<p><a href="${escapeHtml(input.link)}">Accept or decline the invite</a></p>
<p>The link works once, for this email address only, until ${escapeHtml(until)}. New to Tessera? Sign up with this address; the link brings you back to the invite.</p>
<p>If you did not expect this invite, ignore this email.</p>`
  return { subject, text, html }
}
