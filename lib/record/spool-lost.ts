// The spool's lost events: files the fold kept aside as `<name>.lost` (a hook that stopped half
// way, or a payload that is not JSON; the log says which). Nothing reads them as events again:
// `trailboss gc` removes those past its threshold, `trailboss doctor` lists them. Not on the
// emitter's path.
import { join } from 'node:path'
import { listRealDir, ownMtimeMs } from '../fs/own-files.js'
import { readRegularHead } from '../fs/safe-file.js'
import { isLostSpoolName, parseSpoolAgent, SPOOL_HEAD_BYTES } from './spool.js'

export interface LostSpoolFile {
  path: string
  name: string
  /** Its last write: when its event came (a rename aside keeps it). */
  mtimeMs: number
  /** The agent its header names; null when it names none (its hook stopped before it did). */
  agent: string | null
}

/**
 * The lost events in the spool folder `sdir`, oldest first: regular files of our own named as
 * the fold names them, never through a link; none when the folder is missing or a link.
 */
export const listLostSpool = (sdir: string): LostSpoolFile[] => {
  const out: LostSpoolFile[] = []
  for (const e of listRealDir(sdir)) {
    if (!e.isFile() || !isLostSpoolName(e.name)) continue
    const path = join(sdir, e.name)
    const head = readRegularHead(path, SPOOL_HEAD_BYTES, { ownOnly: true })
    const mtimeMs = ownMtimeMs(path)
    // One of another user, or gone meanwhile: not ours to list.
    if (typeof head !== 'string' || mtimeMs === null) continue
    out.push({ path, name: e.name, mtimeMs, agent: parseSpoolAgent(head) })
  }
  return out.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.name < b.name ? -1 : 1))
}
