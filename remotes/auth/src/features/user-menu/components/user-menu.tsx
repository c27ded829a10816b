import { useEffect, useId, useRef, useState } from 'react'
import type { KeyboardEvent } from 'react'
import type { SignOutScope } from '@tessera/contracts/auth'
import type { WorkspaceSummary } from '@tessera/contracts/workspaces'
import { AppLink } from '@tessera/plugin-react/app-link'
import { authPaths } from '../../../lib/destinations.ts'
import { withNext } from '../../../lib/next-path.ts'
import { usePlatform, useSession } from '@tessera/plugin-react/platform'
import { useAuthApi } from '../../../lib/use-auth-api.ts'
import { signOut } from '../../sign-out/sign-out.ts'
import { switchWorkspace } from '../../workspaces/switch-workspace.ts'
import { useWorkspaceList } from '../../workspaces/use-workspace-list.ts'
import { useWorkspacesApi } from '../../../lib/workspaces-api.ts'
import '../user-menu.css'

type MenuItem =
  | { kind: 'workspace'; label: string; workspace: WorkspaceSummary }
  | { kind: 'link'; label: string; to: string }
  | { kind: 'sign-out'; label: string; scope: SignOutScope }

const workspaceLinks: MenuItem[] = [
  { kind: 'link', label: 'Create a team…', to: authPaths.newWorkspace },
  { kind: 'link', label: 'Manage workspaces', to: authPaths.workspaces },
]

const accountItems: MenuItem[] = [
  { kind: 'link', label: 'Profile', to: authPaths.profile },
  { kind: 'link', label: 'Sessions', to: authPaths.sessions },
  { kind: 'sign-out', label: 'Sign out', scope: 'local' },
  { kind: 'sign-out', label: 'Sign out everywhere', scope: 'global' },
]

/**
 * The header's account control: a "Sign in" link when signed out; when signed in, a menu button
 * (ARIA menu-button pattern: Enter, Space or arrows open it, arrows move, Escape closes it and
 * returns focus) with the workspaces to switch between (menuitemradio, the current one checked),
 * the account pages and signing out. The button names the current team workspace.
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
  const workspacesApi = useWorkspacesApi()
  const list = useWorkspaceList()
  const [open, setOpen] = useState(false)
  const [pending, setPending] = useState<SignOutScope | 'switch' | null>(null)
  const buttonId = useId()
  const menuId = useId()
  const groupLabelId = useId()
  const rootRef = useRef<HTMLDivElement>(null)
  const buttonRef = useRef<HTMLButtonElement>(null)
  const itemRefs = useRef<(HTMLElement | null)[]>([])
  // Which item to focus once the menu has rendered open (items are hidden until then).
  const pendingFocus = useRef<'first' | 'last' | null>(null)

  const workspaces = list?.workspaces ?? []
  const current = workspaces.find((workspace) => workspace.id === list?.currentId)
  // The header names a team workspace; the personal one goes without saying.
  const team = current?.kind === 'team' ? current.name : null
  const workspaceItems: MenuItem[] = workspaces.map((workspace) => ({
    kind: 'workspace',
    label: workspace.name,
    workspace,
  }))
  const items = [...workspaceItems, ...workspaceLinks, ...accountItems]

  useEffect(() => {
    if (!open) return
    const focusable = itemRefs.current.filter((item) => item !== null)
    const target = pendingFocus.current === 'last' ? focusable.at(-1) : focusable[0]
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

  const runSwitch = async (workspace: WorkspaceSummary) => {
    if (pending !== null) return
    close(true)
    if (workspace.current) return
    setPending('switch')
    // When it worked the page reloads, in the new workspace.
    if (!(await switchWorkspace(platform, workspacesApi, workspace))) setPending(null)
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
    const focusable = itemRefs.current.filter((item): item is HTMLElement => item !== null)
    const index = focusable.findIndex((item) => item === document.activeElement)
    const focusAt = (next: number) =>
      focusable[(next + focusable.length) % focusable.length]?.focus()
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
        focusAt(focusable.length - 1)
        break
      case ' ':
        // Links answer Enter only; menu items take Space too.
        event.preventDefault()
        focusable[index]?.click()
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

  const itemRef = (index: number) => (element: HTMLElement | null) => {
    itemRefs.current[index] = element
  }
  itemRefs.current.length = items.length

  const renderItem = (item: MenuItem, index: number) => {
    if (item.kind === 'workspace') {
      return (
        <li role="none" key={`workspace-${item.workspace.id}`}>
          <button
            ref={itemRef(index)}
            type="button"
            role="menuitemradio"
            aria-checked={item.workspace.current}
            tabIndex={-1}
            className="user-menu__item user-menu__workspace-item"
            aria-disabled={pending !== null}
            onClick={() => void runSwitch(item.workspace)}
          >
            <span className="user-menu__check" aria-hidden="true" />
            <span className="user-menu__workspace-name">{item.label}</span>
            {item.workspace.kind === 'team' && <span className="user-menu__kind">Team</span>}
          </button>
        </li>
      )
    }
    if (item.kind === 'link') {
      return (
        <li role="none" key={item.label}>
          <AppLink
            ref={itemRef(index)}
            role="menuitem"
            tabIndex={-1}
            to={item.to}
            onClick={() => close(true)}
          >
            {item.label}
          </AppLink>
        </li>
      )
    }
    return (
      <li role="none" key={item.label}>
        <button
          ref={itemRef(index)}
          type="button"
          role="menuitem"
          tabIndex={-1}
          className={
            item.scope === 'global' ? 'user-menu__item user-menu__item--danger' : 'user-menu__item'
          }
          aria-disabled={pending !== null}
          onClick={() => void runSignOut(item.scope)}
        >
          {item.label}
        </button>
      </li>
    )
  }

  const firstLink = workspaceItems.length
  const firstAccountItem = firstLink + workspaceLinks.length
  return (
    <div className="user-menu" ref={rootRef}>
      <button
        ref={buttonRef}
        id={buttonId}
        type="button"
        className="user-menu__button"
        aria-label={team === null ? `${label}, account menu` : `${label}, ${team}, account menu`}
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
        {/* The space (a flex container does not draw it) keeps the name and the team two words
            in the visible text, as they are in the accessible name. */}
        {team !== null && (
          <>
            {' '}
            <span className="user-menu__team">{team}</span>
          </>
        )}
      </button>
      <div className="user-menu__popup" hidden={!open}>
        <p className="user-menu__email">{email}</p>
        <ul id={menuId} role="menu" aria-labelledby={buttonId} onKeyDown={onMenuKeyDown}>
          {workspaceItems.length > 0 && (
            <li role="none">
              <p className="user-menu__heading" id={groupLabelId}>
                Workspaces
              </p>
              <ul role="group" aria-labelledby={groupLabelId}>
                {workspaceItems.map((item, index) => renderItem(item, index))}
              </ul>
            </li>
          )}
          {workspaceLinks.map((item, index) => renderItem(item, firstLink + index))}
          <li role="separator" className="user-menu__separator" />
          {accountItems.map((item, index) => renderItem(item, firstAccountItem + index))}
        </ul>
      </div>
    </div>
  )
}
