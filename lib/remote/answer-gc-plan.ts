// Pure: which kept answers of hosts (`remote/<hash>.json`, lib/remote/last-answer.ts) and their
// seen marks (`remote/<hash>.seen.json`) `gc` removes: those of hosts no longer listed.
// lib/remote/last-answer.ts lists and removes them.
import { destinationHash } from './host-name.js'

/** A kept answer's name, or a host's seen marks (remote-seen.ts): `destinationHash`, then `.json` or `.seen.json`; anything else in the folder is not ours to judge. */
const ANSWER_NAME = /^([0-9a-f]{12})(?:\.seen)?\.json$/

/** The names among `names` that are answers (or seen marks) of no host in `listed`. */
export const planAnswerGc = (names: readonly string[], listed: readonly string[]): string[] => {
  const keep = new Set(listed.map((d) => destinationHash(d)))
  return names
    .filter((n) => {
      const hash = ANSWER_NAME.exec(n)?.[1]
      return hash !== undefined && !keep.has(hash)
    })
    .sort()
}
