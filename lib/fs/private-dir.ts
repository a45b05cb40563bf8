// Our folders and files are private: sessions hold commands and messages from the agents.
import { chmodSync, mkdirSync, statSync } from 'node:fs'
import type { Logger } from '../logger.js'

export const PRIVATE_DIR_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

/**
 * Creates the folder 0700, and tightens one a person pre-created looser (sessions hold
 * commands and messages from their agents).
 */
export const ensurePrivateDir = (dir: string, log: Logger = () => {}): void => {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  const mode = statSync(dir).mode & 0o777
  if (mode !== PRIVATE_DIR_MODE) {
    chmodSync(dir, PRIVATE_DIR_MODE)
    log(`tightened ${dir} from ${mode.toString(8)} to 700`)
  }
}
