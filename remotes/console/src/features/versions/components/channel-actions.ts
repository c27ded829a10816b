import type { ConsoleRemoteDetail } from '@tessera/contracts/console'
import type { ChannelState } from '@tessera/contracts/deploy'
import { describeChannel } from '../../../lib/wording.ts'

/** One action the versions page offers; the dialog shows it, the page sends it. */
export type ChannelAction =
  | { kind: 'promote'; version: string }
  | { kind: 'canary'; version: string }
  | { kind: 'stop-canary' }
  | { kind: 'rollback'; to: string }

/** The channel an action moves, whose revision it sends. */
export function channelOf(action: ChannelAction): 'stable' | 'canary' {
  return action.kind === 'promote' || action.kind === 'rollback' ? 'stable' : 'canary'
}

/** What the channel serves before and after the action, as the dialog shows it. */
export function changeOf(
  action: ChannelAction,
  detail: ConsoleRemoteDetail,
  percentage: number,
): { label: string; before: string; after: string } {
  const { stable, canary } = detail.remote
  const described = (state: Pick<ChannelState, 'version' | 'percentage'>) => describeChannel(state)
  switch (action.kind) {
    case 'promote':
      return {
        label: 'Stable channel',
        before: described(stable),
        after: described({ version: action.version, percentage: null }),
      }
    case 'rollback':
      return {
        label: 'Stable channel',
        before: described(stable),
        after: described({ version: action.to, percentage: null }),
      }
    case 'canary':
      return {
        label: 'Canary channel',
        before: described(canary),
        after: described({ version: action.version, percentage }),
      }
    case 'stop-canary':
      return {
        label: 'Canary channel',
        before: described(canary),
        after: described({ version: null, percentage: null }),
      }
  }
}
