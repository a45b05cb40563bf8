// Pure: text from a payload, a transcript, a file name or a pane, made safe to print on a
// terminal. Every character a terminal would act on (C0 and C1 controls, DEL, and so every
// ESC/CSI/OSC sequence) or that prints nothing (bidi overrides and isolates, zero-width and
// other default-ignorable code points, lone surrogates) is shown as a visible escape instead:
// `^[`, `\r`, `\u202e`. Printable text, emoji and CJK included, passes through unchanged, so
// its width on screen is the same. `--json` never goes through here: scripts get exact text.

/**
 * Code points shown as escapes unless one of the exceptions below keeps them. Made on first
 * use: V8 builds the Unicode sets of a `\p{…}` class when the pattern is created, a visible
 * part of the start-up of `ls --json`, which prints no text through here.
 */
let hiddenPattern: RegExp | undefined
const isHidden = (c: string): boolean =>
  (hiddenPattern ??= /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]/u).test(c)

/** Arabic and Syriac signs that are format characters yet print (they prefix a number). */
const PRINTING_FORMAT = new Set([0x600, 0x601, 0x602, 0x603, 0x604, 0x605, 0x6dd, 0x70f, 0x890, 0x891, 0x8e2, 0x110bd, 0x110cd])

const ZWNJ = 0x200c
const ZWJ = 0x200d
const WAVING_BLACK_FLAG = 0x1f3f4
const CANCEL_TAG = 0xe007f

const isPictographic = (cp: number | undefined): boolean => cp !== undefined && /\p{Extended_Pictographic}/u.test(String.fromCodePoint(cp))
/** Scripts whose shaping uses joiners (Arabic, Persian, Indic, …): Latin, Greek, Cyrillic and common punctuation do not. */
const isJoiningLetter = (cp: number | undefined): boolean => {
  if (cp === undefined) return false
  const c = String.fromCodePoint(cp)
  return /[\p{L}\p{M}]/u.test(c) && !/[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}\p{Script=Inherited}]/u.test(c)
}
const isVisibleBase = (cp: number | undefined): boolean =>
  cp !== undefined && !isHidden(String.fromCodePoint(cp)) && !/[\s\p{M}]/u.test(String.fromCodePoint(cp))
const isVariationSelector = (cp: number | undefined): boolean =>
  cp !== undefined && ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef))
const isTag = (cp: number): boolean => cp >= 0xe0020 && cp <= 0xe007f

/**
 * Whether the hidden code point at `i` is part of ordinary text and prints right as it is:
 * a joiner inside an emoji sequence or a word of a joining script, one variation selector
 * after the character it varies, the tags of a subdivision flag, a Mongolian free variation
 * selector. Anything else (a second selector in a row, a joiner between ASCII letters, stray
 * tags: the usual ways of hiding text) is shown.
 */
const keptInContext = (cps: readonly number[], i: number): boolean => {
  const cp = cps[i]!
  const prev = cps[i - 1]
  const next = cps[i + 1]
  if (PRINTING_FORMAT.has(cp)) return true
  if (cp === ZWJ && isPictographic(next) && (isPictographic(prev) || isEmojiTail(cps, i - 1))) return true
  if ((cp === ZWJ || cp === ZWNJ) && isJoiningLetter(prev) && isJoiningLetter(next)) return true
  if (isVariationSelector(cp)) {
    if (!isVisibleBase(prev)) return false
    if (cp >= 0xe0100) return /\p{Script=Han}/u.test(String.fromCodePoint(prev!))
    return true
  }
  if (cp >= 0x180b && cp <= 0x180d) return prev !== undefined && /\p{Script=Mongolian}/u.test(String.fromCodePoint(prev))
  if (isTag(cp)) return inFlagTags(cps, i)
  return false
}

/** An emoji followed by its modifier or VS16 (e.g. 👩🏽 or ❤️) still ends in the emoji for a ZWJ after it. */
const isEmojiTail = (cps: readonly number[], i: number): boolean => {
  const cp = cps[i]
  if (cp === undefined) return false
  const modifier = (cp >= 0x1f3fb && cp <= 0x1f3ff) || cp === 0xfe0f
  return modifier && isPictographic(cps[i - 1])
}

/** Tags between a black flag and the cancel tag: 🏴 + tag letters + U+E007F (e.g. Scotland's flag). */
const inFlagTags = (cps: readonly number[], i: number): boolean => {
  let start = i
  while (start > 0 && isTag(cps[start - 1]!) && cps[start - 1] !== CANCEL_TAG) start--
  if (cps[start - 1] !== WAVING_BLACK_FLAG) return false
  let end = i
  while (end < cps.length - 1 && cps[end] !== CANCEL_TAG && isTag(cps[end + 1]!)) end++
  return cps[end] === CANCEL_TAG && end - start >= 2
}

const NAMED: Record<number, string> = { 0x09: '\\t', 0x0a: '\\n', 0x0d: '\\r' }

/** The visible form of one hidden code point: `\t \n \r`, caret notation for C0 and DEL, else `\uXXXX`. */
export const escapeCodePoint = (cp: number): string => {
  const named = NAMED[cp]
  if (named) return named
  if (cp < 0x20) return `^${String.fromCharCode(cp + 0x40)}`
  if (cp === 0x7f) return '^?'
  const hex = cp.toString(16).padStart(4, '0')
  return cp > 0xffff ? `\\u{${hex}}` : `\\u${hex}`
}

export interface VisibleOptions {
  /** Keep line breaks (`\n`) as they are: for pages of several lines. A `\r` is always shown. */
  newlines?: boolean
  /** Expand tabs to spaces at stops of 8 (from the start of each line) instead of showing `\t`. */
  tabs?: 'expand' | 'escape'
}

/** Quick path: nothing but printable ASCII (and what the options keep) needs no work. */
const PLAIN = /^[\x20-\x7e]*$/

/** Text with every control and non-printing character shown as a visible escape. */
export const formatVisible = (text: string, opts: VisibleOptions = {}): string => {
  if (PLAIN.test(text)) return text
  if (opts.newlines)
    return text
      .split('\n')
      .map((line) => formatVisible(line, { tabs: opts.tabs ?? 'escape' }))
      .join('\n')
  // Iterating a string by code point yields a lone surrogate as itself.
  const cps = Array.from(text, (c) => c.codePointAt(0)!)
  let out = ''
  let column = 0
  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i]!
    const c = String.fromCodePoint(cp)
    if (cp === 0x09 && opts.tabs === 'expand') {
      const pad = 8 - (column % 8)
      out += ' '.repeat(pad)
      column += pad
    } else if (isHidden(c) && !keptInContext(cps, i)) {
      const shown = escapeCodePoint(cp)
      out += shown
      column += shown.length
    } else {
      out += c
      column++
    }
  }
  return out
}

/** True when the text holds nothing a terminal would act on or hide (what the tests assert). */
export const isVisibleText = (text: string, opts: VisibleOptions = {}): boolean => formatVisible(text, opts) === text
