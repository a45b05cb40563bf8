// Captures OpenCode's permission dialog with its colours (`tmux capture-pane -p -e`), once with
// each of its three buttons chosen, into test/fixtures/opencode/screens/03-permission-colour-*.ansi:
// the colours are all that tells which button Enter presses (lib/agents/opencode/screen.ts).
// Not a test: run it by hand after an OpenCode upgrade, then read the diff. Usage (repo root):
//   node --import=tsx test/e2e/capture-opencode-dialog.ts
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Lab, press, REPO, sleep, submit, waitFor, waitForScreen } from './harness.js'
import { checkOpencode, startOpencode, startOpencodeLab } from './opencode-env.js'
import { stripColours } from '../../lib/agents/opencode/screen.js'

const OUT = join(REPO, 'test', 'fixtures', 'opencode', 'screens')
/** The lab's temp root, in the fixtures: no machine's own paths. */
const ROOT_PLACEHOLDER = '$P'
const BUTTONS = /Allow once\s+Allow always\s+Reject/
const SETTLE_MS = 300

const colourCapture = async (lab: Lab, pane: string): Promise<string> => {
  const r = await lab.tmux('capture-pane', '-p', '-e', '-t', pane)
  if (r.code !== 0) throw new Error(`capture-pane -e ${pane}: ${r.stderr.trim()}`)
  return r.stdout
}

/** The dialog's buttons row, escapes and all: what moves when the choice does. */
const buttonsRow = (screen: string): string | undefined => screen.split('\n').find((l) => BUTTONS.test(stripColours(l)))

/**
 * Presses `key` (none for the dialog as it opened) and returns the screen once its buttons row
 * differs from `last` and the whole screen holds still: a key reaches the TUI a moment after
 * send-keys returns, and a frame may be half drawn.
 */
const afterKey = async (lab: Lab, pane: string, key: string | null, last: string | undefined): Promise<{ screen: string; row: string }> => {
  if (key) await press(lab, pane, key)
  const got = await waitFor(
    `the buttons row after ${key ?? 'the dialog opened'}`,
    async () => {
      const screen = await colourCapture(lab, pane)
      const row = buttonsRow(screen)
      if (row === undefined || row === last) return undefined
      await sleep(SETTLE_MS)
      return (await colourCapture(lab, pane)) === screen ? { screen, row } : undefined
    },
    10_000,
  )
  return got.value
}

const main = async (): Promise<void> => {
  console.log(await checkOpencode())
  const lab = await startOpencodeLab((n) => `touch oc-${n}`)
  try {
    const pane = await startOpencode(lab, 'oc')
    await submit(lab, pane, 'TOOL one')
    await waitForScreen(lab, pane, BUTTONS, 90_000, "OpenCode's permission dialog")
    const rows: string[] = []
    for (const [i, name] of ['allow-once', 'allow-always', 'reject'].entries()) {
      const { screen, row } = await afterKey(lab, pane, i > 0 ? 'Right' : null, rows.at(-1))
      rows.push(row)
      const file = join(OUT, `03-permission-colour-${name}.ansi`)
      writeFileSync(file, screen.split(lab.root).join(ROOT_PLACEHOLDER))
      console.log(`wrote ${file}`)
    }
    // The moves \`ok\` makes onto "Allow once" (screen.ts): Right from "Reject" wraps, Left from "Allow always".
    const wrapped = await afterKey(lab, pane, 'Right', rows[2])
    if (wrapped.row !== rows[0]) throw new Error('Right from "Reject" did not choose "Allow once"')
    await afterKey(lab, pane, 'Right', rows[0])
    const back = await afterKey(lab, pane, 'Left', rows[1])
    if (back.row !== rows[0]) throw new Error('Left from "Allow always" did not choose "Allow once"')
    console.log('checked: Right from "Reject" and Left from "Allow always" choose "Allow once"')
    // Leaves nothing run: Esc rejects whichever button is chosen.
    await press(lab, pane, 'Escape')
  } finally {
    await lab.close()
  }
}

await main()
