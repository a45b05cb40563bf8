// Waiting in tests: poll a condition until it holds or a deadline passes, never a fixed sleep.

/** Polls `check` until it holds; throws `timed out waiting for: <what>` after `ms`. */
export const waitFor = async (check: () => boolean | Promise<boolean>, what: string, ms = 5000, stepMs = 50): Promise<void> => {
  if (!(await eventually(check, ms, stepMs))) throw new Error(`timed out waiting for: ${what}`)
}

/** Polls `check` until it holds or `ms` pass; whether it held (for conditions that may not come). */
export const eventually = async (check: () => boolean | Promise<boolean>, ms: number, stepMs = 20): Promise<boolean> => {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      if (await check()) return true
    } catch {
      // not yet
    }
    if (Date.now() > deadline) return false
    await new Promise((r) => setTimeout(r, stepMs))
  }
}
