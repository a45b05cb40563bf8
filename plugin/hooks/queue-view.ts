// Pure: `trailboss ls --json` as the mod shows it. The mod runs in Claude Code's own worker (no
// Node, no import of the CLI's modules: a plugin is copied alone into Claude Code's cache), so
// what it needs of the queue's contract is read and checked here, field by field.

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
  let text = ''
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
    const lines = (str(ask.message) ?? '').split('\n').map((l) => l.trim()).filter(Boolean)
    text = lines[lines.length - 1] ?? ''
  }
  text = text.replace(/\s+/g, ' ').trim()
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
    waits.push({ n: item.n, key, sessionId, kind, since, project: str(item.project) ?? '?', ask: askLine(item.ask), pane: tmux ? str(tmux.pane) : null, seen: item.seen === true })
  }
  return { waits, skipped, digest: str(doc.digest) }
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
