// Whether V8 took the CLI's code cache: the executable (bin/trailboss.cts) records it where
// `trailboss doctor` reads it. Nothing else here: the executable bundles this file.

export type CodeCacheState = 'used' | 'refused' | 'none'

const STATE = Symbol.for('trailboss.codeCache')

export const recordCodeCacheState = (state: CodeCacheState): void => {
  ;(globalThis as Record<symbol, unknown>)[STATE] = state
}

/** What the executable recorded; null when the CLI runs without it (in-process, in tests). */
export const codeCacheState = (): CodeCacheState | null => {
  const v = (globalThis as Record<symbol, unknown>)[STATE]
  return v === 'used' || v === 'refused' || v === 'none' ? v : null
}
