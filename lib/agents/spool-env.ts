// The variables a spooled event keeps, per agent: its pane's (lib/record/spool.ts) and the ones
// its own hooks read (`sessionEnv` in lib/agents/<agent>/hooks.ts). hooks/spool.sh must write
// them before the fold that reads them back runs, and a shell script cannot import them: the
// build writes this module's `case` into the shipped dist/hooks/spool.sh in place of its
// `env_names=` line (scripts/build.mjs). So each list has one source, a new agent's included,
// and the installed hook commands stay as they were (`spool.sh <agent id> <node>`); an old spool
// file still reads, its variables filtered by the same lists when folded (spoolEnv).
import { SPOOL_PANE_ENV } from '../record/spool.js'
import { AGENT_HOOKS } from './hook-registry.js'
import type { AgentHooks } from './types.js'

/** The line of hooks/spool.sh the build replaces. */
export const SPOOL_ENV_LINE = 'env_names='

/** A name spool.sh may `eval`: nothing but capitals, digits and `_`. */
const SAFE_NAME = /^[A-Z_][A-Z0-9_]*$/
const SAFE_ID = /^[a-z0-9-]+$/

/** Pure: each agent's id with the variables its spooled events keep, the pane's first. */
export const deriveSpoolEnv = (agents: readonly AgentHooks[] = AGENT_HOOKS): [string, string[]][] =>
  agents.map((a) => [a.id, [...SPOOL_PANE_ENV, ...(a.sessionEnv ?? [])]])

/**
 * Pure: the shell that sets `env_names` by `$agent`, for spool.sh; an unknown agent keeps the
 * pane's alone. Throws on a name or id the script could not use as it is (the build fails).
 */
export const formatSpoolEnvCase = (agents: readonly AgentHooks[] = AGENT_HOOKS): string => {
  const arm = (pattern: string, names: readonly string[]): string => {
    const bad = names.find((n) => !SAFE_NAME.test(n))
    if (bad !== undefined) throw new Error(`spool-env: ${JSON.stringify(bad)} is not a variable name spool.sh can keep`)
    return `  ${pattern}) env_names='${names.join(' ')}' ;;`
  }
  const lines = deriveSpoolEnv(agents).map(([id, names]) => {
    if (!SAFE_ID.test(id)) throw new Error(`spool-env: ${JSON.stringify(id)} is not an agent id spool.sh can match`)
    return arm(id, names)
  })
  return ['case $agent in', ...lines, arm('*', SPOOL_PANE_ENV), 'esac'].join('\n')
}

/** Pure: spool.sh's text with the lists written in; throws unless the script has the line once. */
export const writeSpoolEnv = (script: string, agents: readonly AgentHooks[] = AGENT_HOOKS): string => {
  const lines = script.split('\n')
  const at = lines.flatMap((l, i) => (l === SPOOL_ENV_LINE ? [i] : []))
  if (at.length !== 1) throw new Error(`spool-env: spool.sh must hold the line ${SPOOL_ENV_LINE} once, not ${at.length} times`)
  lines.splice(at[0]!, 1, formatSpoolEnvCase(agents))
  return lines.join('\n')
}
