import * as fs from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { applyEvent } from '../lib/record/fold.js'
import type { HookEvent } from '../lib/record/types.js'
import { writePendingEvent } from '../lib/record/pending-events.js'
import { peekState, readStore } from '../lib/record/read.js'
import { hookEvent } from './helpers/hook-event.js'
import { hooksFor } from '../lib/agents/hook-registry.js'
import { sessionsDir } from '../lib/paths.js'

const ev = (sessionId: string, name: string, stamp: number, extra: Partial<HookEvent> = {}): HookEvent =>
  hookEvent({ stamp, name, sessionId, promptId: 'p', tool: { name: 'X', input: { state: 'ended' }, useId: null }, ...extra })

t.test("peekState reads the record's own state, whatever its inputs hold", async (t) => {
  const live = applyEvent(null, ev('a', 'PreToolUse', 1), hooksFor)
  t.equal(peekState(JSON.stringify(live)), 'working', 'a tool input with "state":"ended" comes after the record\'s own')
  t.equal(peekState(JSON.stringify(applyEvent(live, ev('a', 'SessionEnd', 2), hooksFor))), 'ended')
  t.equal(peekState('{"v":1}'), null)
  t.equal(peekState('{"state":"ended'), null, 'a torn file')
})

t.test('readStore: ended sessions counted by id when skipped, pending events still count', async (t) => {
  const home = t.testdir({ sessions: {} })
  const dir = join(home, 'sessions')
  const put = (id: string, ...events: HookEvent[]): void => {
    const rec = events.reduce<ReturnType<typeof applyEvent> | null>((r, e) => applyEvent(r, e, hooksFor), null)
    fs.writeFileSync(join(dir, `${id}.json`), JSON.stringify(rec))
  }
  put('done-1', ev('done-1', 'Stop', 1), ev('done-1', 'SessionEnd', 2))
  put('live-1', ev('live-1', 'Stop', 1))
  put('back-1', ev('back-1', 'SessionEnd', 1))
  writePendingEvent(dir, ev('back-1', 'SessionStart', 5, { source: 'resume' }))
  fs.writeFileSync(join(dir, 'torn-1.json'), '{"v":1,"state":"ended"')
  const full = await readStore({ TRAILBOSS_HOME: home }, sessionsDir({ TRAILBOSS_HOME: home }), { agents: hooksFor })
  t.same(full.records.map((r) => r.sessionId).sort(), ['back-1', 'done-1', 'live-1'])
  t.same(full.endedIds, [])
  const light = await readStore({ TRAILBOSS_HOME: home }, sessionsDir({ TRAILBOSS_HOME: home }), { agents: hooksFor, skipEnded: true })
  t.same(
    light.records.map((r) => [r.sessionId, r.state]).sort(),
    [
      ['back-1', 'idle'],
      ['live-1', 'waiting'],
    ],
    'a resumed session is read whole',
  )
  t.same(light.endedIds.sort(), ['done-1', 'torn-1'])
  t.same(
    full.skipped.map((s) => s.why),
    ['not valid JSON'],
    'a full read reports the torn file',
  )
})
