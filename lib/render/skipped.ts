// Files a read skipped, one stderr line each, as every reading command reports them.
import type { Io } from '../io.js'
import type { SkippedFile } from '../record/read.js'
import { formatVisible } from '../text/visible-text.js'

/** One stderr line per skipped file, as every reading command reports them. */
export const reportSkipped = (view: { skipped: readonly SkippedFile[] }, io: Pick<Io, 'stderr'>): void => {
  for (const s of view.skipped) io.stderr.write(`${formatVisible(`trailboss: skipped ${s.file}: ${s.why}`)}\n`)
}
