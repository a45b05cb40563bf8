// Pure: which kept answers of hosts (`remote/<hash>.json`, lib/remote/last-answer.ts) `gc`
// removes: those of hosts no longer listed. lib/remote/last-answer.ts lists and removes them.
import { destinationHash } from './host-name.js'

/** A kept answer's name: `destinationHash` and `.json`; anything else in the folder is not ours to judge. */
const ANSWER_NAME = /^[0-9a-f]{12}\.json$/

/** The names among `names` that are answers of no host in `listed`. */
export const planAnswerGc = (names: readonly string[], listed: readonly string[]): string[] => {
  const keep = new Set(listed.map((d) => `${destinationHash(d)}.json`))
  return names.filter((n) => ANSWER_NAME.test(n) && !keep.has(n)).sort()
}
