import { readFileSync } from 'node:fs'
import t from 'tap'
import {
  canonicalJson,
  CODEX_HOOK_EVENTS,
  effectiveTimeout,
  hookStateKey,
  hookTrustHash,
  type CodexHookEvent,
} from '../lib/agents/codex/hook-trust.js'

interface ListedHook {
  key: string
  eventName: string
  command: string
  timeoutSec: number
  matcher: string | null
  sourcePath: string
  currentHash: string
  trustStatus: string
}

// What Codex 0.171.0 itself reported (`codex app-server` hooks/list) for the hooks of the capture.
const listed = (
  JSON.parse(readFileSync(new URL('./fixtures/codex/hooks-list.json', import.meta.url), 'utf8')) as { data: { hooks: ListedHook[] }[] }
).data.flatMap((d) => d.hooks)
const hooksJson = JSON.parse(readFileSync(new URL('./fixtures/codex/hooks.json', import.meta.url), 'utf8')) as {
  hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]>
}
const eventOfLabel = new Map<string, CodexHookEvent>(Object.entries(CODEX_HOOK_EVENTS).map(([k, v]) => [v, k as CodexHookEvent]))

t.test('our hash and key are the ones Codex reports, for every event', async (t) => {
  t.equal(listed.length, Object.keys(CODEX_HOOK_EVENTS).length, 'one listed hook per event')
  for (const h of listed) {
    const label = h.key.split(':').slice(-3)[0]!
    const event = eventOfLabel.get(label)
    if (!event) {
      t.fail(`unknown event label ${label}`)
      continue
    }
    // The capture's hooks.json (paths rewritten) gives the configured timeout, before any clamp.
    const configured = hooksJson.hooks[event]?.[0]?.hooks[0]?.timeout
    t.equal(hookTrustHash(event, { command: h.command, timeout: configured }), h.currentHash, `${event}: hash`)
    t.equal(hookStateKey(h.sourcePath, event, 0, 0), h.key, `${event}: key`)
    t.equal(effectiveTimeout(event, configured), h.timeoutSec, `${event}: timeout as Codex runs it`)
    t.equal(h.trustStatus, 'trusted', `${event}: the capture trusted it with our hash`)
  }
})

t.test('a hash from a probe with other shapes (recorded by hand from hooks/list)', async (t) => {
  // Two handlers in one Stop group with a matcher (Stop takes none, so it is dropped), one
  // without a timeout (600 s by default).
  t.equal(
    hookTrustHash('PreToolUse', { command: '/bin/true a', timeout: 5 }),
    'sha256:9173ffe5207ef787455b843f0001db15e8b948885778fb8ca43bf045bc4483ad',
  )
  t.equal(
    hookTrustHash('Stop', { command: '/bin/true a', timeout: 5 }),
    'sha256:1a84358cb5927d9983c974c837ab54be02cad632c09c1dae9f29cb52d68f7fda',
  )
  t.equal(hookTrustHash('Stop', { command: '/bin/true b' }), 'sha256:9089fbe4af7f25a2f25f3632e38d7451acc2782f9be7be2a40f5ae6528f54196')
})

t.test('the hash changes with whatever Codex hashes', async (t) => {
  const base = hookTrustHash('Stop', { command: 'x', timeout: 5 })
  t.not(hookTrustHash('Stop', { command: 'y', timeout: 5 }), base, 'command')
  t.not(hookTrustHash('Stop', { command: 'x', timeout: 6 }), base, 'timeout')
  t.not(hookTrustHash('UserPromptSubmit', { command: 'x', timeout: 5 }), base, 'event')
  t.not(hookTrustHash('Stop', { command: 'x', timeout: 5, async: true }), base, 'async')
  t.equal(
    hookTrustHash('SessionEnd', { command: 'x', timeout: 30 }),
    hookTrustHash('SessionEnd', { command: 'x', timeout: 3 }),
    'a clamped timeout hashes as clamped',
  )
  t.equal(hookTrustHash('Stop', { command: 'x', timeout: 0 }), hookTrustHash('Stop', { command: 'x', timeout: 1 }), 'below 1 s counts as 1')
})

t.test('canonicalJson sorts keys at every depth and drops undefined', async (t) => {
  t.equal(canonicalJson({ b: 1, a: [{ d: 'x"', c: null }], u: undefined }), '{"a":[{"c":null,"d":"x\\""}],"b":1}')
})
