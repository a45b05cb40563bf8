// Pure: a remote host's `trailboss ls --json`, checked before anything of it is used. The answer
// comes from another machine: it must be the documented document (docs/ls.schema.json), and every
// text in it is made visible here, so a hostile host can neither send escapes to the terminal nor
// smuggle a field the rest of the code trusts (keys are checked against the session-id pattern).
import type { infer as Infer } from 'zod/mini'
import type { lsOutputSchema } from '../schemas/contract.js'
import { checkListing } from '../cache/check.generated.js'
import { formatVisible } from '../text/visible-text.js'
import { SESSION_ID_PATTERN } from '../paths.js'

export type RemoteListing = Infer<typeof lsOutputSchema>
export type RemoteJsonItem = RemoteListing['queue'][number]

export type AnswerCheck = { ok: true; listing: RemoteListing } | { ok: false; why: string }

/** Deeply, every string (and key) made visible; other values as they are. */
export const visibleDeep = (value: unknown, depth = 0): unknown => {
  if (typeof value === 'string') return formatVisible(value)
  if (depth > 32 || value === null || typeof value !== 'object') return depth > 32 ? null : value
  if (Array.isArray(value)) return value.map((v) => visibleDeep(v, depth + 1))
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [formatVisible(k), visibleDeep(v, depth + 1)]))
}

/** The listing zod makes of a document the compiled check refused (a newer host's added fields are dropped), or null. */
const parseWithZod = async (data: unknown): Promise<RemoteListing | null> => {
  const { lsOutputSchema } = await import('../schemas/contract.js')
  const got = lsOutputSchema.safeParse(data)
  return got.success ? got.data : null
}

/**
 * The listing a host answered, or why it is refused. The compiled check (lib/cache/, no zod) is
 * the fast path; it refuses fields it does not know, so what it refuses goes to zod, which has
 * the last word (a newer host's additions are then dropped).
 */
export const checkRemoteAnswer = async (text: string): Promise<AnswerCheck> => {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return { ok: false, why: 'its answer is not JSON' }
  }
  const version = (data as { version?: unknown } | null)?.version
  if (typeof version === 'number' && version !== 2)
    return { ok: false, why: `its ls --json is version ${version}, this one reads 2: update Trail Boss there` }
  const listing = checkListing(data) ? (data as RemoteListing) : await parseWithZod(data)
  if (listing === null) return { ok: false, why: 'its answer is not an ls --json document (docs/ls.schema.json)' }
  for (const item of listing.queue)
    if (!SESSION_ID_PATTERN.test(item.key) || !SESSION_ID_PATTERN.test(item.sessionId))
      return { ok: false, why: 'its answer names a session with a key that is not one' }
  return { ok: true, listing: visibleDeep(listing) as RemoteListing }
}
