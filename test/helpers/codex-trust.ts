// config.toml as `install` and `uninstall` --agent codex edit it, for tests of the pure edit.
import { codexCompanion } from '../../lib/agents/codex/settings-hooks.js'
import { readTrustEntries } from '../../lib/agents/codex/trust-config.js'
import type { JsonObject } from '../../lib/settings/json-value.js'

export const HOOKS_FILE = '/home/me/.codex/hooks.json'

/** config.toml after hooks.json went from `before` to `after`. */
export const followTrust = (text: string | null, before: JsonObject | null, after: JsonObject): string | null =>
  codexCompanion.update(text, { settingsFile: HOOKS_FILE, file: 'config.toml', before, after, known: [] })

/** The trust entries of a config.toml; throws when it cannot be read. */
export const trustEntriesOf = (text: string): Map<string, string | null> => {
  const read = readTrustEntries(text, 'config.toml')
  if ('why' in read) throw new Error(read.why)
  return read
}
