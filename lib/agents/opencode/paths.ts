// Where OpenCode keeps what we write, its plugins folders, and what we read, its database. It
// reads its config from $XDG_CONFIG_HOME/opencode (default ~/.config/opencode), a project's from
// <project>/.opencode, and keeps its sessions in $XDG_DATA_HOME/opencode/opencode.db (default
// ~/.local/share/opencode).
import { isAbsolute, join, resolve } from 'node:path'
import { EXIT_USAGE, TrailbossError } from '../../errors.js'
import { type Env, homeDir } from '../../paths.js'
import type { Scope } from '../../settings/scope.js'
import { PLUGIN_FILE } from './plugin.js'

export const opencodeConfigDir = (env: Env): string => {
  const xdg = env.XDG_CONFIG_HOME
  return join(xdg && isAbsolute(xdg) ? xdg : join(homeDir(env), '.config'), 'opencode')
}

/** OpenCode's SQLite database, where its sessions, messages and their parts live. */
export const opencodeDatabase = (env: Env): string => {
  const xdg = env.XDG_DATA_HOME
  return join(xdg && isAbsolute(xdg) ? xdg : join(homeDir(env), '.local', 'share'), 'opencode', 'opencode.db')
}

/** Our plugin's file in a scope's plugins folder. */
export const opencodePluginFileFor = (scope: Scope, env: Env, cwd: string): string => {
  switch (scope) {
    case 'user':
      return join(opencodeConfigDir(env), 'plugins', PLUGIN_FILE)
    case 'project':
      return join(resolve(cwd), '.opencode', 'plugins', PLUGIN_FILE)
    case 'local':
      throw new TrailbossError('OpenCode has no local plugins folder', 'use --scope user (or project)', EXIT_USAGE)
  }
}
