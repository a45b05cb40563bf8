// STUB (replaced by the real module at merge)
import { createHash } from 'node:crypto'
export const checkDestination = (s: string): string | null => (/^[A-Za-z0-9._@:%[\]-]{1,253}$/.test(s) && !s.startsWith('-') ? null : 'bad')
export const destinationHash = (d: string): string => createHash('sha256').update(d).digest('hex').slice(0, 12)
