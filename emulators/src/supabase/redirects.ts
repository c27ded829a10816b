/**
 * GoTrue's redirect allow list: `redirect_to` is honoured when it is on the site URL's origin or
 * matches an entry of the list (`*` matches within a path segment or host label, `**` anything);
 * otherwise the site URL is used.
 */
export function resolveRedirect(
  requested: string | undefined,
  siteUrl: string,
  allowList: readonly string[],
): string {
  if (requested === undefined || requested === '') return siteUrl
  // Not an absolute URL: GoTrue falls back to the site URL, and so do we.
  if (!URL.canParse(requested)) return siteUrl
  const target = new URL(requested)
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return siteUrl
  if (target.origin === new URL(siteUrl).origin) return target.toString()
  return allowList.some((pattern) => globMatches(pattern, requested)) ? target.toString() : siteUrl
}

function globMatches(pattern: string, value: string): boolean {
  const source = pattern
    .split(/(\*\*|\*)/)
    .map((part) =>
      part === '**' ? '.*' : part === '*' ? '[^/.]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('')
  return new RegExp(`^${source}$`).test(value)
}
