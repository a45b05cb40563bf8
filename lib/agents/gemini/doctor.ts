// `doctor`'s checks of a Gemini CLI setup: our hooks in ~/.gemini/settings.json, for every event,
// switched on, running a program that is there, and its events left waiting in the spool.
// Nothing at all when Gemini CLI is not set up (no settings file, or none of our hooks in it):
// most people run one agent.
import { existsSync } from 'node:fs'
import { sessionsDir } from '../../paths.js'
import { spoolAgesOf, spoolDir } from '../../record/spool.js'
import type { JsonObject } from '../../settings/json-value.js'
import { spoolPathFor } from '../../settings/package-root.js'
import { readSettingsFile } from '../../settings/settings-file.js'
import { deriveSpoolStuckCheck } from '../spool-check.js'
import type { AgentCheck, DoctorContext } from '../types.js'
import { geminiSettingsFile } from './paths.js'
import { splitShellWords } from '../../settings/shell-line.js'
import { deriveHooksDisabled, GEMINI_HOOK_EVENTS, listOurGeminiHooks } from './settings-hooks.js'

const ID = 'gemini:hooks'
const FIX = 'trailboss install --agent gemini'

/**
 * Pure: the verdicts on one settings file as read (`exists` checks the programs our hooks run;
 * `spoolAges`: how old Gemini CLI's spooled events are).
 */
export const deriveGeminiChecks = (
  file: string,
  read: { settings: JsonObject | null; error: string | null },
  known: readonly string[],
  exists: (path: string) => boolean,
  spoolAges: readonly number[] = [],
): AgentCheck[] => {
  if (read.error !== null)
    return [{ id: ID, status: 'warn', summary: `cannot read ${file}: ${read.error}`, fix: `fix it by hand, then: ${FIX}` }]
  if (!read.settings) return []
  const ours = listOurGeminiHooks(read.settings, known)
  if (ours.length === 0) return []
  const checks: AgentCheck[] = []
  const missing = GEMINI_HOOK_EVENTS.filter((e) => !ours.some((o) => o.event === e))
  if (missing.length > 0)
    checks.push({ id: ID, status: 'warn', summary: `Gemini CLI: no hook of ours for ${missing.join(', ')} in ${file}`, fix: FIX })
  const off = deriveHooksDisabled(read.settings)
  if (off)
    checks.push({
      id: `${ID}:enabled`,
      status: 'warn',
      summary: `Gemini CLI: ${off} (${file})`,
      fix: 'remove that setting, or run /hooks in Gemini CLI',
    })
  const programs = new Set(ours.flatMap((o) => (splitShellWords(String(o.hook.command)) ?? []).filter((w) => w.startsWith('/'))))
  const gone = [...programs].filter((p) => !exists(p))
  if (gone.length > 0)
    checks.push({
      id: `${ID}:program`,
      status: 'fail',
      summary: `Gemini CLI's hooks run ${gone.join(', ')}, which is not there: its sessions are not recorded`,
      fix: FIX,
    })
  const stuck = deriveSpoolStuckCheck('gemini:spool', 'Gemini CLI', spoolAges, FIX)
  if (stuck) checks.push(stuck)
  if (checks.length === 0)
    checks.push({ id: ID, status: 'ok', summary: `Gemini CLI: hooks for ${GEMINI_HOOK_EVENTS.length} events in ${file}`, fix: null })
  return checks
}

export const geminiDoctor = ({ env, known, now }: DoctorContext): AgentCheck[] => {
  const file = geminiSettingsFile(env)
  // `known` holds emitter files; the spool hook beside each is ours too (what install writes now;
  // installs of an earlier version ran the emitter).
  const ours = [...known, ...known.map(spoolPathFor)]
  return deriveGeminiChecks(file, readSettingsFile(file), ours, existsSync, spoolAgesOf(spoolDir(sessionsDir(env)), 'gemini', now))
}
