// What the emitter's bundle gets for `require('assert')`. Its one user, signal-exit (loaded by
// proper-lockfile to release a lock on exit), calls assert.equal once per handler it adds;
// node:assert itself costs the emitter about a sixth of a Node start to load.

/** assert.equal as signal-exit uses it: loose equality, else an error with the message. */
export const equal = (actual: unknown, expected: unknown, message?: string): void => {
  // eslint-disable-next-line eqeqeq -- assert.equal's own comparison
  if (actual != expected) throw new Error(message ?? `${String(actual)} == ${String(expected)}`)
}
