// Pure: the one way our hook and status-line commands are written as a POSIX shell line, and
// read back. Agents that run a hook through a shell (Codex, Gemini CLI) and Claude Code's
// `statusLine` get words quoted only where needed; reading accepts only plain words and single
// quotes, so a line with expansions or operators is never taken for one of ours.

/** Characters a word may hold without quotes. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/
const PLAIN_CHAR = /[A-Za-z0-9_@%+=:,./-]/

/** POSIX single quotes, only where needed; a quote inside as `'\''`. */
export const shellQuote = (word: string): string => (PLAIN_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)

/** Words as one shell line. */
export const formatShellLine = (words: readonly string[]): string => words.map(shellQuote).join(' ')

/**
 * A command line split the way a POSIX shell splits plain words and quotes; null when it
 * holds anything else (expansions, operators), which is never a command of ours.
 */
export const splitShellWords = (line: string): string[] | null => {
  const words: string[] = []
  let word: string | null = null
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (c === ' ' || c === '\t') {
      if (word !== null) words.push(word)
      word = null
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1)
      if (end < 0) return null
      word = (word ?? '') + line.slice(i + 1, end)
      i = end
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i]
    } else if (PLAIN_CHAR.test(c)) {
      word = (word ?? '') + c
    } else return null
  }
  if (word !== null) words.push(word)
  return words
}
