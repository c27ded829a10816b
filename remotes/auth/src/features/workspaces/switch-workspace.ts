import type { Platform } from '@tessera/contracts/platform'
import type { WorkspaceSummary } from '@tessera/contracts/workspaces'
import { notifyFailure } from '../../lib/notify-failure.ts'
import { reloadPage } from '../../lib/reload-page.ts'
import type { WorkspacesApi } from '../../lib/workspaces-api.ts'

/**
 * Makes `workspace` this session's current one, then reloads the page so that everything on it
 * is read again for that workspace. Returns false (after saying why) when the BFF refused.
 */
export async function switchWorkspace(
  platform: Platform,
  api: WorkspacesApi,
  workspace: Pick<WorkspaceSummary, 'id' | 'name'>,
): Promise<boolean> {
  try {
    await api.switchTo(workspace.id)
  } catch (error) {
    notifyFailure(platform, error, `You could not switch to ${workspace.name}.`)
    return false
  }
  reloadPage()
  return true
}
