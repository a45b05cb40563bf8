// `doctor`'s checks of a GitHub Copilot CLI setup: our hook file in the user's hooks folder, an
// entry for every event, running programs that are there, and its events left in the spool.
// Nothing at all when Copilot is not set up (no hook file of ours, or none of our entries in
// it): most people run one agent.
import { existsSync } from 'node:fs'
import { sessionsDir } from '../../paths.js'
import { spoolAgesOf, spoolDir } from '../../record/spool.js'
import { isJsonObject, type JsonObject } from '../../settings/json-value.js'
import { spoolPathFor } from '../../settings/package-root.js'
import { readSettingsFile } from '../../settings/settings-file.js'
import { splitShellWords } from '../../settings/shell-line.js'
import { deriveSpoolStuckCheck } from '../spool-check.js'
import type { AgentCheck, DoctorContext } from '../types.js'
import { COPILOT } from './hook-event.js'
import { COPILOT_HOOK_EVENTS, copilotHookFileFor, isOurCopilotHook } from './settings-hooks.js'

const ID = 'copilot:hooks'
const FIX = 'trailboss install --agent copilot'

/** Every entry of ours in a hook file, with its event. */
export const listOurCopilotHooks = (settings: JsonObject, known: readonly string[] = []): { event: string; hook: JsonObject }[] => {
  if (!isJsonObject(settings.hooks)) return []
  return Object.entries(settings.hooks).flatMap(([event, list]) =>
    Array.isArray(list) ? list.filter((h) => isOurCopilotHook(h, known)).map((hook) => ({ event, hook: hook as JsonObject })) : [],
  )
}

/**
 * Pure: the verdicts on our hook file as read (`exists` checks the programs our hooks run;
 * `spoolAges`: how old Copilot's spooled events are).
 */
export const deriveCopilotChecks = (
  file: string,
  read: { settings: JsonObject | null; error: string | null },
  known: readonly string[],
  exists: (path: string) => boolean,
  spoolAges: readonly number[] = [],
): AgentCheck[] => {
  if (read.error !== null)
    return [{ id: ID, status: 'warn', summary: `cannot read ${file}: ${read.error}`, fix: `fix it by hand, then: ${FIX}` }]
  if (!read.settings) return []
  const ours = listOurCopilotHooks(read.settings, known)
  if (ours.length === 0) return []
  const checks: AgentCheck[] = []
  const missing = COPILOT_HOOK_EVENTS.filter((e) => !ours.some((o) => o.event === e))
  if (missing.length > 0)
    checks.push({ id: ID, status: 'warn', summary: `GitHub Copilot CLI: no hook of ours for ${missing.join(', ')} in ${file}`, fix: FIX })
  const programs = new Set(
    ours.flatMap((o) => (splitShellWords(String(o.hook.bash ?? o.hook.command)) ?? []).filter((w) => w.startsWith('/'))),
  )
  const gone = [...programs].filter((p) => !exists(p))
  if (gone.length > 0)
    checks.push({
      id: `${ID}:program`,
      status: 'fail',
      summary: `GitHub Copilot CLI's hooks run ${gone.join(', ')}, which is not there: its sessions are not recorded`,
      fix: FIX,
    })
  const stuck = deriveSpoolStuckCheck('copilot:spool', 'GitHub Copilot CLI', spoolAges, FIX)
  if (stuck) checks.push(stuck)
  if (checks.length === 0)
    checks.push({
      id: ID,
      status: 'ok',
      summary: `GitHub Copilot CLI: hooks for ${COPILOT_HOOK_EVENTS.length} events in ${file}`,
      fix: null,
    })
  return checks
}

export const copilotDoctor = ({ env, cwd, known, now }: DoctorContext): AgentCheck[] => {
  const file = copilotHookFileFor('user', env, cwd)
  // `known` holds emitter files; the spool hook beside each is what our install writes.
  const ours = [...known, ...known.map(spoolPathFor)]
  return deriveCopilotChecks(file, readSettingsFile(file), ours, existsSync, spoolAgesOf(spoolDir(sessionsDir(env)), COPILOT, now))
}
