// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { definePlugin, type Platform, type SnapshotRemote } from '@tessera/contracts'
import { createLoadOrder } from '../remotes/load-order.ts'
import { createRemoteLoader } from '../remotes/loader.ts'
import { RemotesContext, type RemotesRuntime } from '../remotes/remotes-context.tsx'
import { CommandPalette } from './command-palette.tsx'

const remote = (name: string, label: string): SnapshotRemote => ({
  name,
  version: '1.0.0',
  entryUrl: `http://cdn.test/${name}/1.0.0/assets/remoteEntry.js`,
  contract: 1,
  basePath: `/${name}`,
  nav: { label, order: 10 },
  slots: [],
  previous: null,
})

function setup() {
  const ran: string[] = []
  const navigated: string[] = []
  const notes = definePlugin({
    name: 'notes',
    contract: 1,
    commands: [
      {
        id: 'new-note',
        label: 'New note',
        shortcut: 'Mod+Shift+N',
        run: (platform) => {
          ran.push(`new-note by ${platform.remote.name}`)
        },
      },
    ],
  })
  const runtime: RemotesRuntime = {
    loadOrder: createLoadOrder({ maxWaitMs: 0 }),
    loader: createRemoteLoader({
      loadModule: async (ref) => {
        if (ref.name === 'notes') return notes
        throw new Error('down')
      },
      report: () => undefined,
      timeoutMs: 200,
      retryDelayMs: 0,
      log: () => undefined,
    }),
    platformFor: (r, version) => ({
      platform: { remote: { name: r.name, version } } as Platform,
      dispose: () => undefined,
    }),
    report: () => undefined,
  }
  render(
    <RemotesContext value={runtime}>
      <CommandPalette
        remotes={[remote('notes', 'Notes'), remote('billing', 'Billing')]}
        navigate={(to) => navigated.push(to)}
      />
    </RemotesContext>,
  )
  return { ran, navigated }
}

const pressCtrlK = () =>
  act(() => {
    fireEvent.keyDown(document, { key: 'k', ctrlKey: true })
  })

afterEach(cleanup)

describe('the command palette (commands)', () => {
  it("opens with Ctrl-K, lists the host's go-to entries and each plugin's commands, and runs one", async () => {
    const { ran } = setup()
    expect(screen.queryByRole('dialog')).toBeNull()
    await pressCtrlK()
    // The dialog's code is a file of its own (decision 053): it is shown once that has arrived.
    expect(await screen.findByRole('dialog', { name: 'Commands' })).toBeTruthy()
    expect(screen.getByRole('option', { name: /Go to Billing/ })).toBeTruthy()
    // billing's code is down: its commands are missing, the palette still works.
    const command = await screen.findByRole('option', { name: /New note/ })
    expect(command.textContent).toContain('Mod+Shift+N')
    fireEvent.click(command)
    await waitFor(() => expect(ran).toEqual(['new-note by notes']))
    expect(screen.queryByRole('dialog')).toBeNull()
  })

  it('filters as one types and runs the first match with Enter; Escape closes', async () => {
    const { navigated } = setup()
    const before = document.createElement('button')
    document.body.append(before)
    before.focus()
    await pressCtrlK()
    const input = await screen.findByRole('combobox', { name: 'Search commands' })
    expect(document.activeElement).toBe(input)
    fireEvent.change(input, { target: { value: 'bill' } })
    expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual([
      'Go to Billing',
    ])
    fireEvent.keyDown(input, { key: 'Enter' })
    expect(navigated).toEqual(['/billing'])
    before.focus()
    await pressCtrlK()
    fireEvent.keyDown(await screen.findByRole('combobox'), { key: 'Escape' })
    expect(screen.queryByRole('dialog')).toBeNull()
    // Closing gives focus back to where it was.
    expect(document.activeElement).toBe(before)
    before.remove()
  })
})
