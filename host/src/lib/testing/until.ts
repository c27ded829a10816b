/** Waits for `condition` to hold, polling briefly, and fails after a deadline: no fixed sleeps. */
export async function until(condition: () => boolean, deadlineMs = 2000): Promise<void> {
  const start = Date.now()
  while (!condition()) {
    if (Date.now() - start > deadlineMs) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
