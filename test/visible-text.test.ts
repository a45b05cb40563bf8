import { execFileSync } from 'node:child_process'
import fc from 'fast-check'
import t from 'tap'
import { formatCommand } from '../lib/text/command-line.js'
import { escapeCodePoint, formatVisible } from '../lib/text/visible-text.js'

/** Any character a terminal acts on, or a line/paragraph separator: none may reach it raw. */
const RAW_CONTROL = /[\p{Cc}\u2028\u2029]/u

t.test('controls and escape sequences are shown, never passed on', async (t) => {
  const cases: [string, string, string][] = [
    ['ESC of a CSI', 'a\x1b[2Kb', 'a^[[2Kb'],
    ['carriage return and erase: the trick that hid a command', 'rm -rf ~\r\x1b[Kls', 'rm -rf ~\\r^[[Kls'],
    ['OSC 52 (clipboard write) ended by BEL', '\x1b]52;c;cm0gLXJmIH4=\x07', '^[]52;c;cm0gLXJmIH4=^G'],
    ['OSC 0 (pane title) ended by ST', '\x1b]0;pwned\x1b\\', '^[]0;pwned^[\\'],
    ['NUL, backspace, DEL', '\x00\x08\x7f', '^@^H^?'],
    ['C1 CSI and NEL', '\u009b31m\u0085', '\\u009b31m\\u0085'],
    ['tab and newline in a one-line field', 'a\tb\nc', 'a\\tb\\nc'],
    ['bidi override (Trojan Source)', 'if (x) {\u202e } \u2066', 'if (x) {\\u202e } \\u2066'],
    ['Arabic letter mark and LRM/RLM', '\u061c\u200e\u200f', '\\u061c\\u200e\\u200f'],
    ['zero-width space and word joiner', 'rm\u200b -rf\u2060', 'rm\\u200b -rf\\u2060'],
    ['BOM, soft hyphen, Hangul filler', '\ufeffa\u00adb\u3164', '\\ufeffa\\u00adb\\u3164'],
    ['line and paragraph separators', 'a\u2028b\u2029', 'a\\u2028b\\u2029'],
    ['lone surrogates', 'a\ud800b\udc00', 'a\\ud800b\\udc00'],
    ['noncharacters', '\ufffe\uffff', '\\ufffe\\uffff'],
    ['a joiner between ASCII letters', 'r\u200dm', 'r\\u200dm'],
    ['selectors hiding text after an emoji', '😀\ufe0f\ufe0e\u{e0101}', '😀\ufe0f\\ufe0e\\u{e0101}'],
    ['stray tag characters (ASCII smuggling)', 'ok\u{e0069}\u{e0067}', 'ok\\u{e0069}\\u{e0067}'],
  ]
  for (const [what, input, shown] of cases) t.equal(formatVisible(input), shown, what)
})

t.test('printable text, emoji and CJK pass through unchanged', async (t) => {
  const kept = [
    'Bash: npm test -- --grep "a b"',
    '日本語のテキスト、中文、한국어',
    'café naïve Ελληνικά кириллица',
    '👩🏽‍💻 👨‍👩‍👧‍👦 ❤️‍🔥 🏳️‍🌈 1️⃣ ❤️',
    '🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}',
    'می\u200cخواهم',
    'क्\u200dष',
    '葛\u{e0100}',
    '\u0600١٢',
    'nerd font \ue0b0 \uf07c',
    'fullwidth ＡＢＣ and 　 ideographic space',
  ]
  for (const text of kept) t.equal(formatVisible(text), text, text)
})

t.test('pages keep their lines; tabs expand to stops of 8', async (t) => {
  t.equal(formatVisible('a\n\x1b[31mb\r\nc', { newlines: true }), 'a\n^[[31mb\\r\nc')
  t.equal(formatVisible('a\tb\n\tc', { newlines: true, tabs: 'expand' }), 'a       b\n        c')
  t.equal(formatVisible('\x1b\tx', { tabs: 'expand' }), '^[      x', 'the escape counts its own width')
})

t.test('escapeCodePoint', async (t) => {
  t.equal(escapeCodePoint(0x1b), '^[')
  t.equal(escapeCodePoint(0x0d), '\\r')
  t.equal(escapeCodePoint(0x9b), '\\u009b')
  t.equal(escapeCodePoint(0xe0001), '\\u{e0001}')
})

t.test('property: nothing a terminal acts on survives; printable text is untouched; escaping twice changes nothing', async (t) => {
  const hostile = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.string({ unit: 'grapheme' }),
    fc.string({
      unit: fc.constantFrom(
        '\x1b',
        '[',
        ']',
        '\x07',
        '\r',
        '\n',
        '\t',
        '\u009b',
        '\u202e',
        '\u2066',
        '\u200b',
        '\u200d',
        '\ufe0f',
        '😀',
        'a',
        '日',
        '\ud800',
        '\u{e0041}',
        '🏴',
        '\u{e007f}',
      ),
    }),
  )
  fc.assert(
    fc.property(hostile, fc.boolean(), (text, pages) => {
      const shown = formatVisible(text, pages ? { newlines: true, tabs: 'expand' } : {})
      const lines = pages ? shown.split('\n') : [shown]
      return (
        lines.every((l) => !RAW_CONTROL.test(l) && !/[\u202a-\u202e\u2066-\u2069\u200b\ufeff]/u.test(l)) &&
        formatVisible(shown, pages ? { newlines: true } : {}) === shown
      )
    }),
    { numRuns: 3000 },
  )
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme-ascii' }), (text) => formatVisible(text) === text || /[\x00-\x1f\x7f]/.test(text)),
    { numRuns: 1000 },
  )
  t.pass('3000 hostile strings, 1000 ASCII ones')
})

t.test("a command line to paste: hidden characters spelled as $'…' escapes, right when pasted into bash", async (t) => {
  const args = ['printf', '%s', `/tmp/a\x1b]0;x\x07b 'q' \\ \u202e 日 😀`]
  const line = formatCommand(args)
  t.equal(formatVisible(line), line, 'nothing raw on the terminal')
  t.equal(execFileSync('bash', ['-c', line], { encoding: 'utf8' }), args[2], 'bash reads back the exact text')
  t.equal(formatCommand(['tmux', '-S', '/tmp/a b/s']), "tmux -S '/tmp/a b/s'", 'plain text keeps plain quotes')
})
