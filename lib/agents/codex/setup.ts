// Codex: what `install`, `uninstall` and `doctor` need (lib/agents/types.ts AgentSetup); kept
// out of index.ts so that the queue's commands never load settings editing.
import type { AgentSetup } from '../types.js'
import { TrailbossError } from '../../errors.js'
import { codexDoctor } from './doctor.js'
import { CODEX_INSTALL_EVENTS, codexCompanion, deriveCodexCommandFrom, mergeCodexHooks, unmergeCodexHooks } from './settings-hooks.js'
import { codexHooksFile } from './paths.js'

export const codexSetup: AgentSetup = {
  id: 'codex',
  command: 'codex',
  doctor: codexDoctor,
  install: {
    label: 'Codex',
    settingsFile: (scope, env) => {
      // Project hooks (.codex/hooks.json) run only in projects the person trusted, each with its own trust entries.
      if (scope !== 'user')
        throw new TrailbossError(
          `Codex hooks are installed for the user only, not in ${scope} scope`,
          'run: trailboss install --agent codex',
        )
      return codexHooksFile(env)
    },
    events: CODEX_INSTALL_EVENTS,
    // Codex waits for every hook: each runs the spool hook (hooks/spool.sh), not Node.
    blocks: () => true,
    runner: 'spool',
    merge: (settings, command, known) => mergeCodexHooks(settings, deriveCodexCommandFrom(command), known),
    unmerge: (settings, known) => unmergeCodexHooks(settings, known),
    companion: codexCompanion,
    // Codex 0.171 read hooks.json at start: three prompts after `install` fired no hook, a new session did.
    hooksReadAt: 'start',
    ownSettings:
      'a session run with a CODEX_HOME of its own reads hooks.json there: CODEX_HOME=<that folder> trailboss install --agent codex',
  },
}
