// Pure: `trailboss ls --json` as the mod shows it. The mod runs in Claude Code's own worker (no
// Node, no import of the CLI's modules: a plugin is copied alone into Claude Code's cache), so
// what it needs of the queue's contract is read and checked here, field by field, and every text
// it draws is made visible by the CLI's rule (lib/text/visible-text.ts), mirrored below.

// --- Visible text: the CLI's formatVisible, one line, mirrored (test/plugin-visible-text.test.ts
// holds the two to the same output) ---------------------------------------------------------------

let hiddenPattern: RegExp | undefined
/** Controls, format characters, separators, surrogates, default-ignorables, noncharacters. */
const isHidden = (c: string): boolean =>
  (hiddenPattern ??= /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]/u).test(c)
const charOf = (cp: number | undefined): string => (cp === undefined ? '' : String.fromCodePoint(cp))
/** Arabic and Syriac signs that are format characters yet print (they prefix a number). */
const PRINTING_FORMAT = new Set([0x600, 0x601, 0x602, 0x603, 0x604, 0x605, 0x6dd, 0x70f, 0x890, 0x891, 0x8e2, 0x110bd, 0x110cd])
const isPictographic = (cp: number | undefined): boolean => /\p{Extended_Pictographic}/u.test(charOf(cp))
/** Letters of the scripts whose shaping uses joiners (Arabic, Indic, …), not Latin, Greek, Cyrillic or Common. */
const isJoiningLetter = (cp: number | undefined): boolean =>
  /[\p{L}\p{M}]/u.test(charOf(cp)) &&
  !/[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}\p{Script=Inherited}]/u.test(charOf(cp))
const isSelector = (cp: number): boolean => (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)
const isTag = (cp: number | undefined): boolean => cp !== undefined && cp >= 0xe0020 && cp <= 0xe007f

/** Tags between a waving black flag and the cancel tag (a subdivision flag such as Scotland's). */
const inFlag = (cps: readonly number[], i: number): boolean => {
  let a = i
  while (isTag(cps[a - 1]) && cps[a - 1] !== 0xe007f) a--
  let b = i
  while (cps[b] !== 0xe007f && isTag(cps[b + 1])) b++
  return cps[a - 1] === 0x1f3f4 && cps[b] === 0xe007f && b - a >= 2
}

/** Whether a hidden code point is part of ordinary text here: a joiner in an emoji or a joining word, one selector, a flag's tags. */
const printsHere = (cps: readonly number[], i: number): boolean => {
  const cp = cps[i]!
  const prev = cps[i - 1]
  const next = cps[i + 1]
  if (PRINTING_FORMAT.has(cp)) return true
  // An emoji, or one followed by its skin-tone modifier or VS16 (👩🏽, ❤️), before a joiner.
  const modifier = prev !== undefined && ((prev >= 0x1f3fb && prev <= 0x1f3ff) || prev === 0xfe0f)
  const afterEmoji = isPictographic(prev) || (modifier && isPictographic(cps[i - 2]))
  if (cp === 0x200d && isPictographic(next) && afterEmoji) return true
  if ((cp === 0x200d || cp === 0x200c) && isJoiningLetter(prev) && isJoiningLetter(next)) return true
  if (isSelector(cp)) {
    if (prev === undefined || isHidden(charOf(prev)) || /[\s\p{M}]/u.test(charOf(prev))) return false
    return cp < 0xe0100 || /\p{Script=Han}/u.test(charOf(prev))
  }
  if (cp >= 0x180b && cp <= 0x180d) return /\p{Script=Mongolian}/u.test(charOf(prev))
  return isTag(cp) && inFlag(cps, i)
}

/** How a hidden code point is shown: `\t \n \r`, `^[` for C0 and `^?` for DEL, else `\uXXXX`. */
const shown = (cp: number): string => {
  if (cp === 0x09) return '\\t'
  if (cp === 0x0a) return '\\n'
  if (cp === 0x0d) return '\\r'
  if (cp < 0x20) return `^${String.fromCharCode(cp + 0x40)}`
  if (cp === 0x7f) return '^?'
  const hex = cp.toString(16).padStart(4, '0')
  return cp > 0xffff ? `\\u{${hex}}` : `\\u${hex}`
}

/** One line with everything a terminal would act on (ESC, OSC, BEL, CSI, …) or hide shown as a visible escape. */
export const visibleText = (text: string): string => {
  if (/^[\x20-\x7e]*$/.test(text)) return text
  const cps = Array.from(text, (c) => c.codePointAt(0)!)
  return cps.map((cp, i) => (isHidden(charOf(cp)) && !printsHere(cps, i) ? shown(cp) : charOf(cp))).join('')
}

// --- The queue -------------------------------------------------------------------------------------

/** `ls --json`'s contract version this view reads (docs/ls.schema.json). */
export const LISTING_VERSION = 2

export interface Wait {
  /** The wait's number, the same in every command and surface. */
  n: number
  key: string
  sessionId: string
  kind: string
  /** When the wait began, ms since the epoch. */
  since: number
  project: string
  ask: string
  pane: string | null
  /** The person has seen it (went there, or acknowledged it); it still blocks the agent. */
  seen: boolean
}

export interface Listing {
  waits: Wait[]
  /** Items left out because they did not have the contract's shape. */
  skipped: number
  /** The document's `digest` (what `ls --json --until-change` waits on); null from a CLI older than it. */
  digest: string | null
  /** The toast for what arrived while the person was away (`returnDigest`); null when the read ended no quiet stretch. */
  returnDigest: string | null
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)

/** AskUserQuestion carries `questions: [{question}]`. */
const questionOf = (input: Record<string, unknown>): string | null => {
  const qs = input.questions
  const q = Array.isArray(qs) ? (qs[0] as unknown) : undefined
  return isObject(q) ? str(q.question) : null
}

const INPUT_KEYS = ['command', 'file_path', 'path', 'url', 'pattern', 'query', 'description', 'prompt'] as const

/** One line of what a wait asks, as `trailboss ls` words it: the tool and its command or file, else the message's last line. */
export const askLine = (ask: unknown, max = 80): string => {
  if (!isObject(ask)) return ''
  const tool = str(ask.tool)
  let text: string
  if (tool) {
    const input = ask.input
    const detail =
      typeof input === 'string'
        ? input
        : isObject(input)
          ? (INPUT_KEYS.map((k) => str(input[k])).find((v) => v) ?? questionOf(input) ?? JSON.stringify(input))
          : ''
    text = detail ? `${tool}: ${detail}` : tool
  } else {
    const lines = (str(ask.message) ?? '')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
    text = lines[lines.length - 1] ?? ''
  }
  // As `trailboss ls` words it: tabs, newlines and spaces run together, the rest made visible.
  text = visibleText(text.replace(/[\t\n\p{Zs}]+/gu, ' ').trim())
  const chars = [...text]
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`
}

/**
 * The waits that need the person (not finished turns; seen ones too, marked) in `ls --json` output,
 * in the CLI's order. Throws when the text is
 * not the contract at all (another program named `trailboss`, a newer major version); an item
 * that lacks a field is skipped and counted, never guessed at.
 */
export const parseListing = (text: string): Listing => {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch {
    throw new Error('`trailboss ls --json` printed something that is not JSON')
  }
  // Version 1 numbered waits by position: a number it gave could name another wait by the time
  // it is pressed, so an older CLI is named rather than read.
  if (isObject(doc) && typeof doc.version === 'number' && doc.version < LISTING_VERSION) {
    throw new Error(`\`trailboss\` is older than this plugin (ls --json version ${doc.version}): npm install -g trailboss`)
  }
  if (!isObject(doc) || doc.version !== LISTING_VERSION || !Array.isArray(doc.queue)) {
    throw new Error(`\`trailboss ls --json\` is not version ${LISTING_VERSION} of the queue's contract`)
  }
  const waits: Wait[] = []
  let skipped = 0
  for (const item of doc.queue as unknown[]) {
    if (!isObject(item)) {
      skipped++
      continue
    }
    // As every surface counts: a finished turn does not nag; a wait that needs the person counts
    // whoever looked at it (a glance is not an answer), marked seen.
    if (item.needsYou === false) continue
    const key = str(item.key)
    const sessionId = str(item.sessionId)
    const since = Date.parse(str(item.since) ?? '')
    const kind = str(item.kind) ?? str(item.state)
    if (!key || !sessionId || !kind || !Number.isFinite(since) || typeof item.n !== 'number') {
      skipped++
      continue
    }
    const tmux = isObject(item.tmux) ? item.tmux : null
    // What is drawn is visible text; the key and the session id are only passed back to `trailboss`.
    const drawn = { kind: visibleText(kind), project: visibleText(str(item.project) ?? '?'), ask: askLine(item.ask) }
    waits.push({ n: item.n, key, sessionId, since, ...drawn, pane: tmux ? str(tmux.pane) : null, seen: item.seen === true })
  }
  return { waits, skipped, digest: str(doc.digest), returnDigest: formatReturnToast(doc.returnDigest) }
}

/**
 * The toast for `returnDigest`, which `ls --json --return-digest` adds on the read that ends the
 * person's quiet stretch: its one line, as visible text; null when it is absent or not the
 * contract's shape (the counts are not worded again here: the CLI's line is the digest's wording).
 */
export const formatReturnToast = (field: unknown): string | null => {
  const line = isObject(field) ? str(field.line) : null
  return line ? visibleText(line) : null
}

/** The waits of every session but this one. */
export const othersOf = (waits: readonly Wait[], ownSessionId: string | null): Wait[] => waits.filter((w) => w.sessionId !== ownSessionId)

/** A short age, as the CLI's tables show it: `12s`, `3m`, `2h`, `4d`. */
export const formatAge = (ms: number): string => {
  const s = Math.max(0, Math.floor(ms / 1000))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m`
  if (s < 86_400) return `${Math.floor(s / 3600)}h`
  return `${Math.floor(s / 86_400)}d`
}

/**
 * The status entry: `2 others wait · oldest 4m`, or undefined (no entry) when nobody else waits.
 * Its age counts whole minutes (`<1m` before the first): each new text makes Claude Code draw its
 * status line again, which costs its main thread more than the mod's own work (docs/benchmarks.md).
 * `floor`: the age will not move on, so it says "at least" (`oldest 4m+`, `oldest 12s+`).
 */
export const formatStatus = (others: readonly Wait[], now: number, floor = false): string | undefined => {
  if (others.length === 0) return undefined
  const oldest = Math.min(...others.map((w) => w.since))
  const who = others.length === 1 ? '1 other waits' : `${others.length} others wait`
  const age = now - oldest
  return `${who} · oldest ${floor ? `${formatAge(age)}+` : age < 60_000 ? '<1m' : formatAge(age)}`
}

/** When the status entry's text changes next without a new wait: the oldest age's next step (`<1m` → `1m`, `4m` → `5m`, `59m` → `1h`). */
export const nextChangeAt = (others: readonly Wait[], now: number): number => {
  if (others.length === 0) return Number.POSITIVE_INFINITY
  const oldest = Math.min(...others.map((w) => w.since))
  const age = Math.max(0, now - oldest)
  const unit = age < 3_600_000 ? 60_000 : age < 86_400_000 ? 3_600_000 : 86_400_000
  return oldest + (Math.floor(age / unit) + 1) * unit
}

/** A wait is the same wait while its session waits from the same moment (a new `since` is a new wait). */
export const waitId = (w: Pick<Wait, 'sessionId' | 'since'>): string => `${w.sessionId}@${w.since}`

/** The waits in `now` that were not in `before`: each is told once. */
export const newWaits = (before: ReadonlySet<string>, now: readonly Wait[]): Wait[] => now.filter((w) => !before.has(waitId(w)))

/** The toast for a wait that just began: `api waits: Bash: npm run migrate`. */
export const formatToast = (w: Wait): string => (w.ask ? `${w.project} waits: ${w.ask}` : `${w.project} waits (${w.kind})`)

/**
 * Whether a prompt or command came from the person's own keys (the composer), not from a
 * scheduled trigger, a background task's notice, another plugin or a peer: only such a read says
 * the person is back (docs/design.md §11.8).
 */
export const isTypedByPerson = (origin: { kind: string } | undefined): boolean => origin?.kind === 'composer'
