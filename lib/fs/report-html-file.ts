// The report's page on disk: it holds the agents' commands, so it is the person's alone (0600
// whatever the umask), and written whole: the temp file goes beside it (a rename cannot cross
// filesystems) and is renamed over it, so a browser open on the old page never reads half a new one.
import { basename, dirname } from 'node:path'
import { writeFileAtomic } from './atomic-write.js'
import { PRIVATE_FILE_MODE } from './private-dir.js'

/** Writes the page to `file` atomically, mode 0600; throws when it could not (the temp file is removed). */
export const writeReportHtml = (file: string, html: string): void => {
  writeFileAtomic(file, html, dirname(file), `.${basename(file)}`, { mode: PRIVATE_FILE_MODE })
}
