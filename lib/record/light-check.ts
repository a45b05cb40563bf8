// A light structural check of our own files, enough to trust them on the emitter's hot path
// (readers check records with the schema, lib/record/check.ts).
import type { HookEvent, SessionRecord } from './types.js'

/** A light structural check, enough to trust our own files on the hot path (readers use zod). */
export const looksLikeRecord = (v: unknown, sessionId: string): v is SessionRecord => {
  if (typeof v !== 'object' || v === null) return false
  const r = v as Partial<SessionRecord>
  return (
    r.v === 1 && r.sessionId === sessionId && typeof r.state === 'string' && typeof r.events === 'number' && Array.isArray(r.foldedPending)
  )
}

export const looksLikeEvent = (v: unknown, sessionId: string): v is HookEvent => {
  if (typeof v !== 'object' || v === null) return false
  const e = v as Partial<HookEvent>
  return e.v === 1 && e.sessionId === sessionId && typeof e.name === 'string' && typeof e.stamp === 'number'
}
