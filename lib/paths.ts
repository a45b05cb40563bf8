// Where things live. Every function reads the environment when called, never at import time,
// so tests (and one process serving several homes) can pass their own env.
import { join, resolve } from 'node:path'

export type Env = Readonly<Record<string, string | undefined>>

/** Session ids name files, so only this shape is ever accepted (docs/design.md §2.8). */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/

export const isValidSessionId = (id: unknown): id is string => typeof id === 'string' && SESSION_ID_PATTERN.test(id)

// node:os only without $HOME: loading it is a visible part of `ls`'s start-up.
export const homeDir = (env: Env = process.env): string => env.HOME || process.getBuiltinModule('node:os').homedir()

export const trailbossHome = (env: Env = process.env): string => resolve(env.TRAILBOSS_HOME || join(homeDir(env), '.trailboss'))

export const sessionsDir = (env: Env = process.env): string => join(trailbossHome(env), 'sessions')

/**
 * Pure: whether a change at `path` (a path or a bare name) in the sessions folder is only the
 * noise around a write: temp files, locks and the ended index change with every write; the
 * record's rename is the news. What every watcher of the folder ignores.
 */
export const isSessionsNoise = (path: string): boolean => /\.(tmp|lock)$/.test(path) || /(^|[/\\])\.(tmp|ended)([/\\]|$)/.test(path)

/** The other hosts whose queues join this one's (lib/remote/hosts-file.ts); absent: none. */
export const hostsFile = (env: Env = process.env): string => join(trailbossHome(env), 'hosts.json')

export const logFile = (env: Env = process.env): string => join(trailbossHome(env), 'log')

export const recordFile = (dir: string, sessionId: string): string => join(dir, `${sessionId}.json`)

export const pendingDir = (dir: string, sessionId: string): string => join(dir, `${sessionId}.pending`)

/**
 * The ended index: an empty file per session whose record says `ended`, so readers that do
 * not show ended sessions can count them without opening hundreds of records.
 */
export const endedIndexDir = (dir: string): string => join(dir, '.ended')

/** Temp files of atomic writes: one folder, so readers never see them among the records. */
export const tempDir = (dir: string): string => join(dir, '.tmp')
