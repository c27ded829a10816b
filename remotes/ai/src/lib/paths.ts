/** The billing remote's plans page, reached through the platform (remotes never import each other). */
export const billingPlansPath = '/billing/plans'

/** The assistant's own pages, below its base path. */
export const assistantRoutes = {
  newConversation: '/',
  conversation: (id: string) => `/conversations/${encodeURIComponent(id)}`,
  /** A team's usage per member, model and day, with the members' caps (owners and admins). */
  teamUsage: '/team-usage',
  /** The author's public share links, with Stop sharing. */
  shares: '/shares',
}

/** The conversation id a sub-route names, or null for the new-conversation page. */
/** `undefined` for an address that is neither (the page shows "not found"). */
export function conversationIdOf(route: string): string | null | undefined {
  if (route === '/' || route === '') return null
  const match = /^\/conversations\/([^/]+)\/?$/.exec(route)
  if (match?.[1] === undefined) return undefined
  // Ids are UUIDs; a malformed escape is no conversation of ours.
  if (/%(?![0-9a-f]{2})/i.test(match[1])) return undefined
  return decodeURIComponent(match[1])
}
