#!/usr/bin/env node
// Starts the CLI (main.cjs beside this file) from the V8 code cache the build made for it
// (main.v8): compiling the bundle and the functions a run calls is a visible part of a
// 30 ms command. A cache V8 refuses (another Node version, other V8 flags) is not used, and
// the CLI compiles as usual. Only node built-ins here: this file is the start-up.
import fs = require('node:fs')
import path = require('node:path')
import url = require('node:url')
import vm = require('node:vm')
import state = require('../lib/code-cache-state.js')

const MAIN = path.join(__dirname, 'main.cjs')
const CACHE = path.join(__dirname, 'main.v8')

/** What main.cjs exports. */
interface Main {
  start: (argv: string[]) => Promise<void>
}

/** The commands the build runs to fill the cache: the ones people and status lines run most. */
const WARM_UP = [['ls', '--json'], ['ls', '--plain'], ['ls'], ['ls', '--json', '--all'], ['status']]

/**
 * main.cjs's own module scope, as Node's loader would give it, plus `__tbImport`: V8 loses the
 * dynamic-import callback of a script compiled from a cache, so the build rewrites main.cjs's
 * imports of dist/bin/full/ to call this instead (it runs here, outside the cached script).
 */
const wrap = (source: string): string => `(function (exports, require, module, __filename, __dirname, __tbImport) {${source}\n})`

// A CommonJS chunk (the numbers book's writer, the view's sync) is required: the first import()
// of a run starts Node's ES module loader, about 20 ms that a status line need not pay.
const importBeside = (specifier: string): Promise<unknown> =>
  specifier.endsWith('.cjs')
    ? Promise.resolve(require(path.join(__dirname, specifier)))
    : import(url.pathToFileURL(path.join(__dirname, specifier)).href)

const load = (): { main: Main; script: vm.Script; cache: state.CodeCacheState } => {
  let cachedData: Buffer | undefined
  try {
    cachedData = fs.readFileSync(CACHE)
  } catch {
    // Built without one: compile as usual.
  }
  const script = new vm.Script(wrap(fs.readFileSync(MAIN, 'utf8')), { filename: MAIN, ...(cachedData ? { cachedData } : {}) })
  const module = { exports: {} as Main }
  ;(script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, MAIN, __dirname, importBeside)
  return { main: module.exports, script, cache: cachedData === undefined ? 'none' : script.cachedDataRejected ? 'refused' : 'used' }
}

const { main, script, cache } = load()
state.recordCodeCacheState(cache)
if (process.env.TRAILBOSS_DEBUG_CODE_CACHE === '1') process.stderr.write(`trailboss: code cache ${cache}\n`)
const out = process.env.TRAILBOSS_WARM_CODE_CACHE
if (out) {
  // The build's warm-up: run the common commands, then keep what V8 compiled for them.
  void WARM_UP.reduce((done, argv) => done.then(() => main.start(argv)), Promise.resolve()).then(() => {
    fs.writeFileSync(out, script.createCachedData())
    process.exitCode = 0
  })
} else void main.start(process.argv.slice(2))
