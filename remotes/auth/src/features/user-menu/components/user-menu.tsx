import { useEffect, useId, useRef, useState } from 'react'
import type { KeyboardEvent } from 'react'
import type { SignOutScope } from '@tessera/contracts/auth'
import { AppLink } from '@tessera/plugin-react/app-link'
import { authPaths } from '../../../lib/destinations.ts'
import { withNext } from '../../../lib/next-path.ts'
import { usePlatform, useSession } from '@tessera/plugin-react/platform'
import { useAuthApi } from '../../../lib/use-auth-api.ts'
import { signOut } from '../../sign-out/sign-out.ts'
import '../user-menu.css'

type MenuItem =
  | { kind: 'link'; label: string; to: string }
  | { kind: 'sign-out'; label: string; scope: SignOutScope }

const menuItems: MenuItem[] = [
  { kind: 'link', label: 'Profile', to: authPaths.profile },
  { kind: 'link', label: 'Sessions', to: authPaths.sessions },
  { kind: 'sign-out', label: 'Sign out', scope: 'local' },
  { kind: 'sign-out', label: 'Sign out everywhere', scope: 'global' },
]

/**
 * The header's account control: a "Sign in" link when signed out; when signed in, a menu button
 * (ARIA menu-button pattern: Enter, Space or arrows open it, arrows move, Escape closes it and
 * returns focus) with the account pages and signing out.
 */
export function UserMenu() {
  const session = useSession()
  if (session.status === 'loading') {
    return (
      <span className="user-menu__pending" role="status">
        <span className="visually-hidden">Checking your session…</span>
      </span>
    )
  }
  if (session.status === 'signed-out') return <SignInLink />
  return (
    <SignedInMenu
      label={session.user.displayName ?? session.user.email}
      email={session.user.email}
    />
  )
}

function SignInLink() {
  const platform = usePlatform()
  return (
    <AppLink
      to={authPaths.signIn}
      className="user-menu__sign-in"
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
          return
        // Read at the click, not at render: the header does not re-render as pages change.
        const here = `${window.location.pathname}${window.location.search}`
        event.preventDefault()
        platform.navigate(
          here.startsWith('/auth') ? authPaths.signIn : withNext(authPaths.signIn, here),
        )
      }}
    >
      Sign in
    </AppLink>
  )
}

function SignedInMenu({ label, email }: { label: string; email: string }) {
  const platform = usePlatform()
  const api = useAuthApi()
  const [open, setOpen] = useState(false)
  const [pending, setPending] = useState<SignOutScope | null>(null)
  const buttonId = useId()
  const menuId = useId()
  const rootRef = useRef<HTMLDivElement>(null)
  const buttonRef = useRef<HTMLButtonElement>(null)
  const itemRefs = useRef<(HTMLElement | null)[]>([])
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

  const runSignOut = async (scope: SignOutScope) => {
    if (pending !== null) return
    setPending(scope)
    close(true)
    const done = await signOut(platform, api, scope)
    // When it worked this menu is gone (the header shows "Sign in"); otherwise it is usable again.
    if (!done) setPending(null)
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
    const items = itemRefs.current.filter((item): item is HTMLElement => item !== null)
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
        // Links answer Enter only; menu items take Space too.
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
        aria-label={`${label}, account menu`}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        aria-busy={pending !== null}
        onClick={() => (open ? close(false) : openMenu('first'))}
        onKeyDown={onButtonKeyDown}
      >
        {/* The initial is drawn by CSS, so the button's visible text is the name alone and its
            accessible name ("Ada Lovelace, account menu") contains it: WCAG 2.5.3. */}
        <span
          className="user-menu__avatar"
          aria-hidden="true"
          data-initial={pending !== null ? undefined : label.slice(0, 1).toUpperCase()}
        >
          {pending !== null ? <span className="spinner" /> : null}
        </span>
        <span className="user-menu__label">{label}</span>
      </button>
      <div className="user-menu__popup" hidden={!open}>
        <p className="user-menu__email">{email}</p>
        <ul id={menuId} role="menu" aria-labelledby={buttonId} onKeyDown={onMenuKeyDown}>
          {menuItems.map((item, index) => (
            <li role="none" key={item.label}>
              {item.kind === 'link' ? (
                <AppLink
                  ref={(element) => {
                    itemRefs.current[index] = element
                  }}
                  role="menuitem"
                  tabIndex={-1}
                  to={item.to}
                  onClick={() => close(true)}
                >
                  {item.label}
                </AppLink>
              ) : (
                <button
                  ref={(element) => {
                    itemRefs.current[index] = element
                  }}
                  type="button"
                  role="menuitem"
                  tabIndex={-1}
                  className={
                    item.scope === 'global'
                      ? 'user-menu__item user-menu__item--danger'
                      : 'user-menu__item'
                  }
                  aria-disabled={pending !== null}
                  onClick={() => void runSignOut(item.scope)}
                >
                  {item.label}
                </button>
              )}
            </li>
          ))}
        </ul>
      </div>
    </div>
  )
}
