import { useEffect, useId, useRef, useState } from 'react'
import type { SnapshotRemote } from '@tessera/contracts'
import { useRemotesRuntime } from '../remotes/remotes-context.tsx'
import {
  filterEntries,
  navigationEntries,
  pluginEntries,
  type PaletteEntry,
} from './palette-commands.ts'
import '../../app/command-palette.css'

/**
 * The command palette's dialog, shown while it is open: the host's "Go to …" entries and every
 * plugin's `commands` (contract 1.1), filtered as one types; Enter or a click runs one, Escape or
 * a click outside closes it (`onClose`, which gives focus back).
 */
export function PaletteDialog({
  remotes,
  navigate,
  onClose,
  onRun,
}: {
  remotes: readonly SnapshotRemote[]
  navigate: (to: string) => void
  onClose(): void
  /** Closes the palette for a command that runs (focus goes where the command takes it). */
  onRun(): void
}) {
  const runtime = useRemotesRuntime()
  const [query, setQuery] = useState('')
  const [plugins, setPlugins] = useState<PaletteEntry[] | null>(null)
  const [active, setActive] = useState(0)
  const inputRef = useRef<HTMLInputElement>(null)
  const titleId = useId()
  const listId = useId()

  useEffect(() => {
    inputRef.current?.focus()
    let cancelled = false
    void pluginEntries(runtime, remotes).then((entries) => {
      if (!cancelled) setPlugins(entries)
    })
    return () => {
      cancelled = true
    }
  }, [runtime, remotes])

  const entries = filterEntries(
    [...navigationEntries(remotes, navigate), ...(plugins ?? [])],
    query,
  )
  const run = (entry: PaletteEntry | undefined) => {
    if (entry === undefined) return
    onRun()
    void entry.run()
  }
  const activeEntry = entries[Math.min(active, entries.length - 1)]

  return (
    <div className="host-palette__backdrop" onClick={onClose}>
      <div
        className="host-palette"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onClick={(event) => event.stopPropagation()}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onClose()
          else if (event.key === 'ArrowDown') setActive((index) => (index + 1) % entries.length)
          else if (event.key === 'ArrowUp')
            setActive((index) => (index - 1 + entries.length) % entries.length)
          else if (event.key === 'Enter') run(activeEntry)
          else return
          event.preventDefault()
        }}
      >
        <h2 id={titleId} className="host-visually-hidden">
          Commands
        </h2>
        <input
          ref={inputRef}
          className="host-palette__input"
          type="text"
          role="combobox"
          aria-label="Search commands"
          aria-expanded="true"
          aria-controls={listId}
          aria-activedescendant={activeEntry ? `${listId}-${activeEntry.key}` : undefined}
          value={query}
          onChange={(event) => {
            setQuery(event.target.value)
            setActive(0)
          }}
        />
        <ul id={listId} className="host-palette__list" role="listbox" aria-label="Commands">
          {entries.map((entry) => (
            <li
              key={entry.key}
              id={`${listId}-${entry.key}`}
              role="option"
              aria-selected={entry === activeEntry}
              className="host-palette__option"
              onClick={() => run(entry)}
            >
              <span>{entry.label}</span>
              {entry.source && <span className="host-palette__source">{entry.source}</span>}
              {entry.shortcut && <kbd className="host-palette__shortcut">{entry.shortcut}</kbd>}
            </li>
          ))}
          {entries.length === 0 && <li className="host-palette__empty">No matching command</li>}
        </ul>
        {plugins === null && (
          <p className="host-palette__loading" role="status">
            Loading commands…
          </p>
        )}
      </div>
    </div>
  )
}
