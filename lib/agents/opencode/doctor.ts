// `doctor`'s checks of an OpenCode setup: our plugin in the user's plugins folder (and the
// project's, where doctor runs), running an emitter that is there, and its events left waiting in
// the spool. Nothing at all when no plugin of ours is in either: most people run one agent.
import { existsSync } from 'node:fs'
import { sessionsDir } from '../../paths.js'
import { spoolAgesOf, spoolDir } from '../../record/spool.js'
import { readSettingsText } from '../../settings/settings-file.js'
import { deriveSpoolStuckCheck } from '../spool-check.js'
import type { AgentCheck, DoctorContext } from '../types.js'
import { opencodePluginFileFor } from './paths.js'
import { isOurPlugin, readPluginEmitter } from './plugin.js'

const ID = 'opencode:plugin'
const FIX = 'trailboss install --agent opencode'

/** Pure: the verdicts on the plugin files as read (null: none there); `exists` checks the emitter's files. */
export const deriveOpencodeChecks = (
  files: readonly { file: string; text: string | null; error?: string }[],
  exists: (path: string) => boolean,
  spoolAges: readonly number[] = [],
): AgentCheck[] => {
  const checks: AgentCheck[] = []
  for (const { file, text, error } of files) {
    if (error !== undefined) checks.push({ id: ID, status: 'warn', summary: `OpenCode: cannot read ${file}: ${error}`, fix: null })
    if (text === null) continue
    if (!isOurPlugin(text)) {
      checks.push({ id: ID, status: 'info', summary: `OpenCode: ${file} is not ours`, fix: null })
      continue
    }
    const cmd = readPluginEmitter(text)
    const gone = cmd ? [cmd.command, ...cmd.args].filter((p) => p.startsWith('/') && !exists(p)) : []
    if (!cmd || gone.length > 0)
      checks.push({
        id: `${ID}:program`,
        status: 'fail',
        summary: `OpenCode's plugin ${file} runs ${cmd ? gone.join(', ') : 'an emitter it does not name'}, which is not there: its events wait in the spool`,
        fix: FIX,
      })
    else checks.push({ id: ID, status: 'ok', summary: `OpenCode: our plugin in ${file}`, fix: null })
  }
  if (!checks.some((c) => c.id !== ID || c.status !== 'info')) return checks
  const stuck = deriveSpoolStuckCheck('opencode:spool', 'OpenCode', spoolAges, FIX)
  return stuck ? [...checks, stuck] : checks
}

export const opencodeDoctor = ({ env, cwd, now }: DoctorContext): AgentCheck[] => {
  const files = [...new Set([opencodePluginFileFor('user', env, cwd), opencodePluginFileFor('project', env, cwd)])].map((file) => {
    try {
      return { file, text: readSettingsText(file) }
    } catch (err) {
      return { file, text: null, error: (err as Error).message }
    }
  })
  return deriveOpencodeChecks(files, existsSync, spoolAgesOf(spoolDir(sessionsDir(env)), 'opencode', now))
}
