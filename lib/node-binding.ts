// Node's own native bindings, for the few things a short command must not pay a module's load
// for (child_process, zlib and the stream classes they bring: several ms of a 50 ms start).
// process.binding is deprecated but kept for these; every caller has a public way to fall
// back on when a Node gives null here.

/**
 * The binding `name`, or null when this Node refuses it. --pending-deprecation would print a
 * warning for process.binding: nothing of ours prints one.
 */
export const nodeBinding = <T>(name: string): T | null => {
  const quiet = process.noDeprecation
  process.noDeprecation = true
  try {
    return ((process as unknown as { binding(name: string): T }).binding(name) ?? null) as T | null
  } catch {
    return null
  } finally {
    process.noDeprecation = quiet
  }
}
