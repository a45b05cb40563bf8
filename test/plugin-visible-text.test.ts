// The mod (plugin/hooks/queue-view.ts) cannot import the CLI's modules, so it carries its own copy
// of the rule that makes text visible: here the two are held to the same output, and what the
// mod draws from a hostile `ls --json` is checked for anything a terminal would act on.
import fc from 'fast-check'
import t from 'tap'
import { formatVisible } from '../lib/text/visible-text.js'
import { formatToast, parseListing, visibleText } from '../plugin/hooks/queue-view.js'

/** Anything a terminal acts on or hides: C0, DEL, C1, bidi controls, separators. */
const RAW = /[\p{Cc}\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2069\ufeff\u2028\u2029]/u

const TABLE = [
  'Bash: npm test -- --grep "a b"',
  'a\x1b[2Kb',
  'rm -rf ~\r\x1b[Kls',
  '\x1b]52;c;cm0gLXJmIH4=\x07',
  '\x1b]0;pwned\x1b\\',
  '\x00\x08\x7f',
  '\u009b31m\u0085',
  'a\tb\nc',
  'if (x) {\u202e } \u2066',
  '\u061c\u200e\u200f',
  'rm\u200b -rf\u2060',
  '\ufeffa\u00adb\u3164',
  'a\u2028b\u2029',
  'a\ud800b\udc00',
  '\ufffe\uffff',
  'r\u200dm',
  '😀\ufe0f\ufe0e\u{e0101}',
  'ok\u{e0069}\u{e0067}',
  '日本語のテキスト、中文、한국어',
  'café naïve Ελληνικά кириллица',
  '👩🏽‍💻 👨‍👩‍👧‍👦 ❤️‍🔥 🏳️‍🌈 1️⃣ ❤️',
  '🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}',
  '🏴\u{e0067}\u{e007f}',
  '\u{e0067}\u{e007f}',
  'می\u200cخواهم',
  'क्\u200dष',
  '葛\u{e0100}',
  'a\u{e0100}',
  '\u0600١٢',
  'ᠠ\u180b a\u180b',
  'nerd font \ue0b0 \uf07c',
  'fullwidth ＡＢＣ and 　 ideographic space',
  '\u{10ffff}\u{e0001}',
]

t.test("the mod's visibleText gives what the CLI's formatVisible gives", async (t) => {
  // The label is made visible too: a raw U+2028 would end a line of TAP.
  for (const [i, text] of TABLE.entries()) t.equal(visibleText(text), formatVisible(text), `case ${i}: ${formatVisible(text)}`)
  // Random text, weighted toward what the rule treats apart: controls, joiners, selectors, tags, emoji.
  const special = fc.constantFrom(
    0x1b,
    0x07,
    0x9b,
    0x7f,
    0x0d,
    0x200d,
    0x200c,
    0xfe0f,
    0xfe0e,
    0xe0100,
    0xe0067,
    0xe007f,
    0x1f3f4,
    0x1f469,
    0x1f3fd,
    0x2764,
    0x627,
    0x915,
    0x845b,
    0x1820,
    0x180b,
    0x600,
    0x202e,
    0xd800,
  )
  const unit = fc.oneof(
    special.map((cp) => String.fromCodePoint(cp)),
    fc.string({ unit: 'binary', maxLength: 3 }),
    fc.string({ maxLength: 3 }),
  )
  fc.assert(
    fc.property(fc.array(unit, { maxLength: 12 }), (parts) => {
      const text = parts.join('')
      return visibleText(text) === formatVisible(text)
    }),
    { numRuns: 5000, seed: 7 },
  )
})

t.test('what the mod draws from a hostile ls --json holds nothing a terminal would act on', async (t) => {
  const hostile = '\x1b]0;pwned\x07\u009b2J\x1b]52;c;cm0gLXJmIH4K\x1b\\'
  const item = (over: Record<string, unknown>) => ({
    n: 1,
    key: 'aaaa1111',
    sessionId: 'aaaa1111-x',
    kind: 'permission',
    since: '2026-12-01T10:00:00.000Z',
    project: `api${hostile}`,
    tmux: { pane: '%3' },
    ask: { tool: 'Bash', input: { command: `ls ${hostile}` }, message: null },
    ...over,
  })
  const listing = parseListing(
    JSON.stringify({
      version: 2,
      digest: 'x',
      queue: [
        item({}),
        item({ key: 'bbbb2222', kind: `question${hostile}`, ask: { tool: null, input: null, message: `Shall I?${hostile}` } }),
      ],
    }),
  )
  t.equal(listing.waits.length, 2)
  for (const w of listing.waits) {
    for (const [what, text] of [
      ['project', w.project],
      ['kind', w.kind],
      ['ask', w.ask],
      ['toast', formatToast(w)],
      ['toast without ask', formatToast({ ...w, ask: '' })],
    ] as const) {
      t.notMatch(text, RAW, `${w.key} ${what}: ${JSON.stringify(text)}`)
    }
  }
  t.equal(listing.waits[0]!.project, 'api^[]0;pwned^G\\u009b2J^[]52;c;cm0gLXJmIH4K^[\\', 'shown as the CLI shows it')
  t.equal(listing.waits[0]!.key, 'aaaa1111', 'the key, passed back to `trailboss go`, is exact')
})
