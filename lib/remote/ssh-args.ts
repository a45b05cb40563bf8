// What ssh is run with to read a remote host (docs/design.md §10.1): the argument list after
// `ssh`, built from the environment alone. OpenSSH does the rest with the person's own
// configuration; nothing here weakens its host-key checking.
import { join } from 'node:path'
import { TrailbossError } from '../errors.js'
import { trailbossHome, type Env } from '../paths.js'

/** A host that does not complete its handshake in this time is no answer. */
export const SSH_CONNECT_TIMEOUT_S = 2
/** A whole read (connect, run, answer) ends within this: a silent host must not hold a command. */
export const SSH_READ_TIMEOUT_MS = 3000
/** An answer past this is refused: no queue is that big, a hostile or broken host may be. */
export const SSH_MAX_ANSWER_BYTES = 4 * 1024 * 1024
/** How long a shared connection stays open after its last use, unless TRAILBOSS_SSH_PERSIST says. */
export const SSH_PERSIST_DEFAULT_S = 60
/** A long-lived session (`watch`'s follow) notices a host gone silent after about 3 × this. */
export const SSH_ALIVE_INTERVAL_S = 5

/**
 * ssh binds a master's socket as `<ControlPath>.<16 random characters>` first, and a Unix socket
 * path is under 108 bytes: with `%C` (40 hex characters) the folder may take 49 bytes at most.
 */
export const CONTROL_DIR_MAX_BYTES = 49

/** The seconds TRAILBOSS_SSH_PERSIST asks for (a whole number, at most a day); 0 shares no connection. */
export const sshPersistSeconds = (env: Env): number => {
  const raw = env.TRAILBOSS_SSH_PERSIST?.trim()
  if (!raw || !/^\d{1,5}$/.test(raw)) return SSH_PERSIST_DEFAULT_S
  const s = Number(raw)
  return s <= 86_400 ? s : SSH_PERSIST_DEFAULT_S
}

/**
 * ssh reads `-o ControlPath=…` as a line of its config: a space ends the value, `%` and a leading
 * `~` are expanded. A folder named otherwise than this is not given to it.
 */
const PLAIN_PATH = /^\/[A-Za-z0-9_./-]*$/

/**
 * The folder of the shared connections' sockets: `cm` in the Trail Boss home, or, when that path
 * is too long for a socket (or not plain), a short one in /tmp named for this user and this home
 * (the caller checks it is ours before use: anyone may create a folder in /tmp).
 */
export const controlDir = (env: Env, uid: number = process.getuid?.() ?? 0): string => {
  const home = trailbossHome(env)
  const dir = join(home, 'cm')
  if (Buffer.byteLength(dir) <= CONTROL_DIR_MAX_BYTES && PLAIN_PATH.test(dir)) return dir
  // node:crypto only here: the usual short home needs no hash, and ssh starts sooner without it.
  const tag = process.getBuiltinModule('node:crypto').createHash('sha256').update(home).digest('hex').slice(0, 8)
  return `/tmp/tb-cm-${uid}-${tag}`
}

/**
 * ssh joins the remote words with spaces and the remote shell parses the line: every word must
 * mean itself to a shell. Callers pass words from fixed lists; a key is checked here too.
 */
export const REMOTE_WORD_PATTERN = /^[A-Za-z0-9_.:%=/-]+$/

export const assertSafeRemoteWord = (w: string): string => {
  if (!REMOTE_WORD_PATTERN.test(w))
    throw new TrailbossError(`refused to send ${JSON.stringify(w)} to a remote shell`, 'only letters, digits and _.:%=/- are sent')
  return w
}

/**
 * An ssh destination (`host`, `user@host`, an alias of the person's ssh config, `ssh://…`): never
 * an option (a leading `-`), nothing a config token or a shell would read specially.
 */
export const DESTINATION_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.@:%+[\]/-]{0,254}$/

export const assertSafeDestination = (d: string): string => {
  if (!DESTINATION_PATTERN.test(d))
    throw new TrailbossError(`refused the ssh destination ${JSON.stringify(d)}`, 'a host name or user@host, not starting with -')
  return d
}

/** The options every call shares: the config file, and where the shared connection's socket is. */
const sharingArgs = (env: Env, master: boolean): string[] => {
  const config = env.TRAILBOSS_SSH_CONFIG ? ['-F', env.TRAILBOSS_SSH_CONFIG] : []
  const persist = sshPersistSeconds(env)
  const sharing =
    master && persist > 0
      ? ['-o', 'ControlMaster=auto', '-o', `ControlPath=${join(controlDir(env), '%C')}`, '-o', `ControlPersist=${persist}`]
      : ['-o', 'ControlMaster=no', '-o', 'ControlPath=none']
  return [...config, ...sharing]
}

/**
 * The argv after `ssh` that runs `remote` on `destination`. `BatchMode` so it never prompts (no
 * password, no unknown host key: those fail); `master: false` shares no connection (the socket
 * folder was not safe to use).
 */
export const sshArgs = (
  env: Env,
  destination: string,
  remote: readonly string[],
  opts: { tty?: boolean; master?: boolean } = {},
): string[] => {
  assertSafeDestination(destination)
  const words = remote.map(assertSafeRemoteWord)
  return [
    ...sharingArgs(env, opts.master ?? true),
    '-o',
    'BatchMode=yes',
    '-o',
    `ConnectTimeout=${SSH_CONNECT_TIMEOUT_S}`,
    '-o',
    `ServerAliveInterval=${SSH_ALIVE_INTERVAL_S}`,
    '-o',
    'ServerAliveCountMax=3',
    opts.tty ? '-t' : '-T',
    '--',
    destination,
    ...words,
  ]
}

/**
 * The argv after `ssh` that asks the shared connection to `destination` whether it runs
 * (`check`) or to end (`exit`). Its socket is looked for even when TRAILBOSS_SSH_PERSIST is 0 now:
 * a master opened before may still run.
 */
export const sshControlArgs = (env: Env, destination: string, command: 'check' | 'exit'): string[] => {
  assertSafeDestination(destination)
  const config = env.TRAILBOSS_SSH_CONFIG ? ['-F', env.TRAILBOSS_SSH_CONFIG] : []
  return [...config, '-o', `ControlPath=${join(controlDir(env), '%C')}`, '-O', command, '--', destination]
}
