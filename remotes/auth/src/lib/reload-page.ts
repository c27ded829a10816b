/**
 * Loads the page again. After a switch of workspace every plugin's data (conversations, usage)
 * belongs to another workspace; a reload re-reads all of it, where telling each plugin would not.
 * A module of its own so tests can replace it.
 */
export function reloadPage(): void {
  window.location.reload()
}
