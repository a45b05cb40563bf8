#!/usr/bin/env node
// trailboss-emit, the file hooks run (dist/hooks/emit.cjs): starts the emitter (emitter.cjs
// beside it, built from hooks/emit.ts) from the V8 code cache the build made for it
// (emit.v8). Compiling the 44 KB emitter is a visible part of a start-up that runs on every
// agent event. A cache V8 refuses (another Node, other V8 flags in NODE_OPTIONS) or a missing
// one is not used: the emitter compiles as usual. Only node built-ins here.
import fs = require('node:fs')
import path = require('node:path')
import vm = require('node:vm')

const EMITTER = path.join(__dirname, 'emitter.cjs')
const CACHE = path.join(__dirname, 'emit.v8')

/** The emitter's own module scope, as Node's loader would give it. */
const wrap = (source: string): string => `(function (exports, require, module, __filename, __dirname) {${source}\n})`

const readCache = (): Buffer | undefined => {
  try {
    return fs.readFileSync(CACHE)
  } catch {
    return undefined
  }
}

const cachedData = readCache()
const script = new vm.Script(wrap(fs.readFileSync(EMITTER, 'utf8')), { filename: EMITTER, ...(cachedData ? { cachedData } : {}) })
const warmTo = process.env.TRAILBOSS_WARM_CODE_CACHE
if (warmTo) {
  // The build's warm-up: keep what V8 compiled for this event once the emitter is done with it.
  process.on('exit', () => {
    try {
      fs.writeFileSync(warmTo, script.createCachedData(), { mode: 0o644 })
    } catch {
      // The build goes on without it.
    }
  })
}
if (process.env.TRAILBOSS_DEBUG_CODE_CACHE === '1')
  process.stderr.write(`trailboss-emit: code cache ${cachedData === undefined ? 'none' : script.cachedDataRejected ? 'refused' : 'used'}\n`)
const module_ = { exports: {} }
;(script.runInThisContext() as (...args: unknown[]) => void)(module_.exports, require, module_, EMITTER, __dirname)
