// What doctor asks of each listed host (docs/design.md §10.6): its trailboss's version, then its
// queue as `ls` reads it, over the same bounded ssh as every read. Facts only; the verdicts are
// lib/doctor/host-checks.ts's. Also the facts of the shared connections' socket folder.
import { type AnswerCheck, checkRemoteAnswer } from './answer.js'
import { lstatSync } from 'node:fs'
import type { Env } from '../paths.js'
import { remoteLsWords } from './fleet.js'
import { controlDir, sshPersistSeconds } from './ssh-args.js'
import { runSsh, type SshResult } from './ssh-run.js'

/** The first question: does the host let us in without a prompt, and run a trailboss we can read. */
export const VERSION_WORDS: readonly string[] = ['trailboss', '--version']

export interface HostProbe {
  destination: string
  /** `trailboss --version` there. */
  version: SshResult
  /** `trailboss ls --json --local` there; null when the first question already failed. */
  listing: SshResult | null
  /** That answer as a listing (answer.ts), or why it is not one; null when there was none. */
  answer: AnswerCheck | null
}

/** Asks one host, each question bounded as a read is (a host that does not answer costs one bound). */
export const probeHost = async (env: Env, destination: string): Promise<HostProbe> => {
  const version = await runSsh(env, destination, VERSION_WORDS)
  const listing = version.ok ? await runSsh(env, destination, remoteLsWords(false)) : null
  return { destination, version, listing, answer: listing?.ok ? await checkRemoteAnswer(listing.stdout) : null }
}

/** Every host at once, in the list's order. */
export const probeHosts = (env: Env, destinations: readonly string[]): Promise<HostProbe[]> =>
  Promise.all(destinations.map((d) => probeHost(env, d)))

/** The socket folder of the shared connections, as lstat finds it. */
export interface ControlDirFacts {
  path: string
  /** TRAILBOSS_SSH_PERSIST's seconds: 0 shares no connection, so the folder is not used. */
  persistS: number
  kind: 'missing' | 'dir' | 'link' | 'other'
  /** Its permission bits, when it is a folder. */
  mode: number | null
  ownedByMe: boolean
}

export const readControlDirFacts = (env: Env): ControlDirFacts => {
  const path = controlDir(env)
  const persistS = sshPersistSeconds(env)
  try {
    const st = lstatSync(path)
    const uid = process.getuid?.()
    return {
      path,
      persistS,
      kind: st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : 'other',
      mode: st.isDirectory() ? st.mode & 0o777 : null,
      ownedByMe: uid === undefined || st.uid === uid,
    }
  } catch {
    return { path, persistS, kind: 'missing', mode: null, ownedByMe: true }
  }
}
