// Command lines printed for a person to paste into a POSIX shell.

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/

/** A command line to print for a person to paste into a POSIX shell. */
export const formatCommand = (argv: readonly string[]): string =>
  argv.map((a) => (SAFE_WORD.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')
