import { useEffect, useId, useRef, useState } from 'react'
import type { KeyboardEvent } from 'react'
import { AppLink } from '../../../lib/app-link.tsx'
import { usePlatform, useSession } from '../../../lib/platform.tsx'
import '../user-menu.css'

const menuItems = [
  { path: '/profile', label: 'Profile' },
  { path: '/sign-out', label: 'Sign out' },
]

/**
 * The header's account control: a "Sign in" link when signed out; when signed in, a menu button
 * (ARIA menu-button pattern: arrows move, Escape closes and returns focus) with account actions.
 */
export function UserMenu() {
  const platform = usePlatform()
  const session = useSession()

  if (session.status === 'loading') {
    return <span className="user-menu__pending">Checking session…</span>
  }
  if (session.status === 'signed-out') {
    return (
      <AppLink to={`${platform.basePath}/sign-in`} className="user-menu__sign-in">
        Sign in
      </AppLink>
    )
  }
  return (
    <SignedInMenu
      label={session.user.displayName ?? session.user.email}
      email={session.user.email}
    />
  )
}

function SignedInMenu({ label, email }: { label: string; email: string }) {
  const platform = usePlatform()
  const [open, setOpen] = useState(false)
  const buttonId = useId()
  const menuId = useId()
  const rootRef = useRef<HTMLDivElement>(null)
  const buttonRef = useRef<HTMLButtonElement>(null)
  const itemRefs = useRef<(HTMLAnchorElement | null)[]>([])
  // Which item to focus once the menu has rendered open (items are hidden until then).
  const pendingFocus = useRef<'first' | 'last' | null>(null)

  useEffect(() => {
    if (!open) return
    const items = itemRefs.current
    const target = pendingFocus.current === 'last' ? items.at(-1) : items[0]
    pendingFocus.current = null
    target?.focus()
  }, [open])

  // A click anywhere outside closes the menu, as it does in native menus.
  useEffect(() => {
    if (!open) return
    const closeOnOutsideClick = (event: PointerEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false)
    }
    document.addEventListener('pointerdown', closeOnOutsideClick)
    return () => document.removeEventListener('pointerdown', closeOnOutsideClick)
  }, [open])

  const openMenu = (target: 'first' | 'last') => {
    pendingFocus.current = target
    setOpen(true)
  }

  const close = (returnFocus: boolean) => {
    setOpen(false)
    if (returnFocus) buttonRef.current?.focus()
  }

  const onButtonKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'Enter' || event.key === ' ') {
      event.preventDefault()
      openMenu('first')
    } else if (event.key === 'ArrowUp') {
      event.preventDefault()
      openMenu('last')
    }
  }

  const onMenuKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    const items = itemRefs.current.filter((item): item is HTMLAnchorElement => item !== null)
    const index = items.findIndex((item) => item === document.activeElement)
    const focusAt = (next: number) => items[(next + items.length) % items.length]?.focus()
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault()
        focusAt(index + 1)
        break
      case 'ArrowUp':
        event.preventDefault()
        focusAt(index - 1)
        break
      case 'Home':
        event.preventDefault()
        focusAt(0)
        break
      case 'End':
        event.preventDefault()
        focusAt(items.length - 1)
        break
      case ' ':
        // Menu items are links, which browsers activate with Enter only; menus take Space too.
        event.preventDefault()
        items[index]?.click()
        break
      case 'Escape':
        event.preventDefault()
        close(true)
        break
      case 'Tab':
        close(false)
        break
    }
  }

  return (
    <div className="user-menu" ref={rootRef}>
      <button
        ref={buttonRef}
        id={buttonId}
        type="button"
        className="user-menu__button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => (open ? close(false) : openMenu('first'))}
        onKeyDown={onButtonKeyDown}
      >
        <span className="user-menu__avatar" aria-hidden="true">
          {label.slice(0, 1).toUpperCase()}
        </span>
        <span className="user-menu__label">{label}</span>
      </button>
      <div className="user-menu__popup" hidden={!open}>
        <p className="user-menu__email">{email}</p>
        <ul id={menuId} role="menu" aria-labelledby={buttonId} onKeyDown={onMenuKeyDown}>
          {menuItems.map((item, index) => (
            <li role="none" key={item.path}>
              <AppLink
                ref={(element) => {
                  itemRefs.current[index] = element
                }}
                role="menuitem"
                tabIndex={-1}
                to={`${platform.basePath}${item.path}`}
                onClick={() => close(true)}
              >
                {item.label}
              </AppLink>
            </li>
          ))}
        </ul>
      </div>
    </div>
  )
}
