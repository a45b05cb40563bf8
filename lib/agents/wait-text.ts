// Pure helpers for adapters' state rules: what an agent's last message says about its wait.

/** True when the message's last non-empty line ends with a question mark (docs/design.md §3.1). */
export const endsWithQuestion = (message: string | null): boolean => {
  if (!message) return false
  const lines = message.trimEnd().split('\n')
  const last = (lines[lines.length - 1] ?? '').trim().replace(/[*_`)\]"']+$/, '')
  return last.endsWith('?')
}
