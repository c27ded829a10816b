import { useId, useState } from 'react'
import type { ConsoleRemoteDetail } from '@tessera/contracts/console'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useConsoleApi } from '../../../lib/use-console-api.ts'
import { ConfirmDialog } from '../../layout/components/confirm-dialog.tsx'
import { changeOf, channelOf, type ChannelAction } from './channel-actions.ts'

interface ActionDialogProps {
  action: ChannelAction
  detail: ConsoleRemoteDetail
  onDone(): Promise<void>
  onClose(): void
}

const DEFAULT_PERCENTAGE = 10

/** The confirmation of one channel move, sent with the revision the page showed. */
export function ActionDialog({ action, detail, onDone, onClose }: ActionDialogProps) {
  const api = useConsoleApi()
  const platform = usePlatform()
  const name = detail.remote.name
  const percentageId = useId()
  const hintId = useId()
  const [percentageText, setPercentageText] = useState(
    String(detail.remote.canary.percentage ?? DEFAULT_PERCENTAGE),
  )
  const percentage = Number(percentageText)
  const percentageValid =
    percentageText.trim() !== '' &&
    Number.isInteger(percentage) &&
    percentage >= 1 &&
    percentage <= 100
  const channel = channelOf(action)
  const expectedRevision = detail.remote[channel].revision
  const change = changeOf(action, detail, percentageValid ? percentage : 0)

  const send = async () => {
    const result =
      action.kind === 'promote'
        ? await api.promote(name, { version: action.version, expectedRevision })
        : action.kind === 'canary'
          ? await api.startCanary(name, { version: action.version, percentage, expectedRevision })
          : action.kind === 'stop-canary'
            ? await api.stopCanary(name, { expectedRevision })
            : await api.rollback(name, { expectedRevision })
    platform.notify({
      kind: 'success',
      message: result.changed
        ? `${name}: ${result.channel} ${change.before} → ${change.after}.`
        : `${name}: the ${result.channel} channel already served that; nothing changed.`,
    })
    await onDone()
  }

  const common = {
    change,
    onConfirm: send,
    onReload: onDone,
    onClose,
  }
  switch (action.kind) {
    case 'promote':
      return (
        <ConfirmDialog
          {...common}
          title={`Promote ${name} ${action.version}?`}
          description={`Every new page load gets ${name} ${action.version}. Open pages offer a reload.${detail.remote.canary.version ? ' The running canary ends.' : ''}`}
          confirmLabel="Promote"
          failureLead="Nothing was promoted."
        />
      )
    case 'rollback':
      return (
        <ConfirmDialog
          {...common}
          danger
          title={`Roll ${name} back to ${action.to}?`}
          description={`Stable goes back to ${action.to}, the last version known good; ${detail.remote.stable.version ?? 'the current version'} is withdrawn and never chosen as a fallback again.`}
          confirmLabel="Roll back"
          failureLead="Nothing was rolled back."
        />
      )
    case 'stop-canary':
      return (
        <ConfirmDialog
          {...common}
          danger
          title={`Stop ${name}'s canary?`}
          description="Everyone is served the stable version again from their next page load."
          confirmLabel="Stop canary"
          failureLead="The canary was not stopped."
        />
      )
    case 'canary':
      return (
        <ConfirmDialog
          {...common}
          title={`Start a canary of ${name} ${action.version}?`}
          description="A sticky share of users gets this version; the rest keep stable. It stops by itself if too many of its clients report errors."
          confirmLabel="Start canary"
          failureLead="No canary was started."
          invalid={percentageValid ? null : 'Enter a whole percentage from 1 to 100.'}
        >
          <div className="field">
            <label htmlFor={percentageId}>Share of users (%)</label>
            <input
              id={percentageId}
              className="input input--short"
              type="number"
              inputMode="numeric"
              min={1}
              max={100}
              step={1}
              required
              aria-describedby={hintId}
              aria-invalid={!percentageValid}
              value={percentageText}
              onChange={(event) => setPercentageText(event.target.value)}
            />
            <p id={hintId} className="field__hint">
              1 to 100. Each user stays on the version they were first given.
            </p>
          </div>
        </ConfirmDialog>
      )
  }
}
