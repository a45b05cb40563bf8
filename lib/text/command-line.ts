// Command lines printed for a person to paste into a POSIX shell.
import { formatVisible } from './visible-text.js'

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/

/** One character of a `$'…'` word: a control or hidden one spelled as its escape. */
const ansiC = (c: string): string => {
  if (c === "'" || c === '\\') return `\\${c}`
  if (formatVisible(c) === c) return c
  const cp = c.codePointAt(0)!
  if (cp < 0x80) return `\\x${cp.toString(16).padStart(2, '0')}`
  return cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`
}

const quote = (a: string): string => {
  if (SAFE_WORD.test(a)) return a
  if (formatVisible(a) === a) return `'${a.replace(/'/g, `'\\''`)}'`
  // A control or hidden character (a socket path, a folder name): `$'…'` (POSIX.1-2024, bash,
  // zsh, ksh) spells it out, so the line is both safe on the terminal and right when pasted.
  return `$'${Array.from(a, ansiC).join('')}'`
}

/** A command line to print for a person to paste into a POSIX shell. */
export const formatCommand = (argv: readonly string[]): string => argv.map(quote).join(' ')
