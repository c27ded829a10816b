import type { ComponentProps, MouseEvent } from 'react'
import { usePlatform } from './platform.tsx'

type AppLinkProps = Omit<ComponentProps<'a'>, 'href'> & {
  /** An app path, like `/billing/plans`. */
  to: string
}

/**
 * A real link (it opens in a new tab, shows its address, works by keyboard) that navigates
 * inside the app through the platform on a plain click.
 */
export function AppLink({ to, onClick, ...rest }: AppLinkProps) {
  const platform = usePlatform()
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event)
    const modified = event.metaKey || event.ctrlKey || event.shiftKey || event.altKey
    if (event.defaultPrevented || event.button !== 0 || modified) return
    event.preventDefault()
    platform.navigate(to)
  }
  return <a href={to} onClick={handleClick} {...rest} />
}
