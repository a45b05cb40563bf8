// Where the running package and its emitter are, and the command our hooks run: exec form
// (the Node binary and the emitter file) or the emitter from PATH.
import * as fs from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import type { Scope } from './scope.js'
import { listPathDirs } from '../fs/find-on-path.js'
import { READ_CAP, readRegularFile } from '../fs/safe-file.js'
import { isJsonObject } from './json-value.js'
import { listEmitterFiles } from './our-command.js'

/** The emitter's name on PATH (package.json `bin`). */
export const EMIT_BIN = 'trailboss-emit'

/** How to install the package for good, as doctor's fixes say it. */
export const INSTALL_PACKAGE = 'npm install -g trailboss (from a clone: npm install -g .)'

/** What our hooks run: exec form (Node binary + emitter file) or the emitter from PATH. */
export interface EmitterCommand {
  command: string
  args?: string[]
}

/** Project scope is shared with teammates, so it names the emitter from PATH, never our paths. */
export const deriveEmitterCommand = (scope: Scope, nodePath: string, emitterPath: string): EmitterCommand =>
  scope === 'project' ? { command: EMIT_BIN } : { command: nodePath, args: [emitterPath] }

export const findPackageRoot = (fromFile: string): string | null => {
  let dir = dirname(resolve(fromFile))
  for (;;) {
    try {
      const pkg: unknown = JSON.parse(fs.readFileSync(join(dir, 'package.json'), 'utf8'))
      if (isJsonObject(pkg) && pkg.name === 'trailboss') return dir
    } catch {
      // No package.json here, or not ours: keep walking up.
    }
    const up = dirname(dir)
    if (up === dir) return null
    dir = up
  }
}

/** Put in by the build (scripts/build.mjs): a bundle cannot find package.json where it looks. */
declare const __TRAILBOSS_VERSION__: string | undefined

/** This package's version: the build's, or from source (tests) the package.json of this checkout. */
export const packageVersion = (selfFile: string): string => {
  if (typeof __TRAILBOSS_VERSION__ === 'string') return __TRAILBOSS_VERSION__
  const root = findPackageRoot(selfFile)
  try {
    return root
      ? String((JSON.parse(fs.readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown }).version ?? 'unknown')
      : 'unknown'
  } catch {
    return 'unknown'
  }
}

/**
 * Emitter files a settings file names that belong to a package called `trailboss` on disk (a
 * clone in a folder of any name): ours, though their path does not say so. Another tool's
 * `…/dist/hooks/emit.cjs` has a package.json of its own name.
 */
export const findOurEmitterFiles = (settings: unknown): string[] =>
  listEmitterFiles(settings).filter((file) => {
    const got = readRegularFile(join(dirname(dirname(dirname(file))), 'package.json'), { cap: READ_CAP.settings, follow: true })
    if (!got.ok) return false
    try {
      const pkg: unknown = JSON.parse(got.text)
      return isJsonObject(pkg) && pkg.name === 'trailboss'
    } catch {
      return false
    }
  })

/** The built emitter inside a package root. */
/** The spool hook beside the emitter (dist/hooks/spool.sh): what agents that wait for every hook run. */
export const spoolPathFor = (emitter: string): string => join(dirname(emitter), 'spool.sh')

export const emitterPathIn = (root: string): string => join(root, 'dist', 'hooks', 'emit.cjs')

/**
 * The Node binary hooks should run: process.execPath, or the PATH entry that is the same file
 * (Homebrew's /opt/homebrew/bin/node survives upgrades, its Cellar path does not).
 */
export const findStableNode = (execPath: string, pathVar: string | undefined): string => {
  let real: string
  try {
    real = fs.realpathSync(execPath)
  } catch {
    return execPath
  }
  for (const dir of listPathDirs(pathVar)) {
    if (!isAbsolute(dir)) continue
    const candidate = join(dir, 'node')
    try {
      if (fs.realpathSync(candidate) === real) return candidate
    } catch {
      // Not here.
    }
  }
  return execPath
}

/** An npx cache path: npm may clean it at any time, taking the emitter with it. */
export const isEphemeralPath = (p: string): boolean => /[\\/]_npx[\\/]/.test(p)
