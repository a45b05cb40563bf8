// `doctor`'s checks of a Codex setup: our handlers in hooks.json, the trust entries Codex needs
// to run them, the spool hook and Node they name, and events left waiting in the spool. The
// verdicts are pure (deriveCodexChecks); readCodexFacts gathers what they need.
import * as fs from 'node:fs'
import { isRefusal, readRegularIfExists, READ_CAP } from '../../fs/safe-file.js'
import { type Env, sessionsDir } from '../../paths.js'
import { spoolAgesOf, spoolDir } from '../../record/spool.js'
import { isJsonObject, type JsonObject } from '../../settings/json-value.js'
import { spoolPathFor } from '../../settings/package-root.js'
import { deriveSpoolStuckCheck } from '../spool-check.js'
import type { AgentCheck, DoctorContext } from '../types.js'
import { CODEX_HOOK_EVENTS } from './hook-trust.js'
import { CODEX_INSTALL_EVENTS, deriveTrustEntries, isOurCodexHandler } from './settings-hooks.js'
import { readTrustEntries, type TrustEntry } from './trust-config.js'
import { codexConfigFile, codexHooksFile } from './paths.js'

const FIX = 'trailboss install --agent codex'

export interface CodexFacts {
  hooksFile: string
  /** hooks.json parsed; null when missing; a string when unreadable or not one JSON object. */
  hooks: JsonObject | null | string
  configFile: string
  config: string | null
  /** Our spool.sh paths `known` to be ours. */
  known: readonly string[]
  /** Files each command of ours names that do not exist. */
  missing: string[]
  /** Ages (ms) of the spooled events. */
  spoolAges: number[]
}

/** Pure: whether config.toml trusts each handler of ours, in whatever TOML spelling it holds the entries. */
const deriveTrustCheck = (entries: readonly TrustEntry[], f: CodexFacts): AgentCheck => {
  const trusted = readTrustEntries(f.config ?? '', f.configFile)
  if ('why' in trusted)
    return {
      id: 'codex:trust',
      status: 'fail',
      summary: `Codex cannot read its config: ${trusted.why}`,
      fix: `fix ${f.configFile} by hand`,
    }
  const untrusted = entries.filter((e) => trusted.get(e.key) !== e.hash)
  if (untrusted.length === 0) return { id: 'codex:trust', status: 'ok', summary: `Codex trusts them (${f.configFile})`, fix: null }
  return {
    id: 'codex:trust',
    status: 'fail',
    summary: `Codex will not run ${untrusted.length} of our hooks: no matching trust entry in ${f.configFile} (it asks to review hooks at start)`,
    fix: FIX,
    details: untrusted.map((e) => e.key),
  }
}

/** Pure: the verdicts. Nothing at all when Codex has no hooks of ours and no spool. */
export const deriveCodexChecks = (f: CodexFacts): AgentCheck[] => {
  const out: AgentCheck[] = []
  if (typeof f.hooks === 'string')
    return [
      {
        id: 'codex:hooks',
        status: 'fail',
        summary: `${f.hooksFile}: ${f.hooks}`,
        fix: `fix ${f.hooksFile} by hand (it must be one JSON object)`,
      },
    ]
  const entries = f.hooks ? deriveTrustEntries(f.hooks, f.hooksFile, f.known) : []
  if (entries.length === 0 && f.spoolAges.length === 0) return out
  const present = new Set(entries.map((e) => e.key.split(':').slice(-3)[0]))
  const missingEvents = CODEX_INSTALL_EVENTS.filter((e) => !present.has(CODEX_HOOK_EVENTS[e]))
  if (entries.length === 0)
    out.push({ id: 'codex:hooks', status: 'warn', summary: `events wait in the spool, but ${f.hooksFile} has no hook of ours`, fix: FIX })
  else if (missingEvents.length > 0)
    out.push({ id: 'codex:hooks', status: 'warn', summary: `Codex: no hook of ours for ${missingEvents.join(', ')}`, fix: FIX })
  else
    out.push({ id: 'codex:hooks', status: 'ok', summary: `Codex: our hooks are in ${f.hooksFile} for ${entries.length} events`, fix: null })
  if (entries.length > 0) out.push(deriveTrustCheck(entries, f))
  if (f.missing.length > 0)
    out.push({
      id: 'codex:command',
      status: 'fail',
      summary: `our Codex hooks run ${f.missing.join(', ')}, which does not exist`,
      fix: FIX,
    })
  const stuck = deriveSpoolStuckCheck('codex:spool', 'Codex', f.spoolAges, FIX)
  if (stuck) out.push(stuck)
  return out
}

const words = (command: string): string[] =>
  command.match(/'(?:[^']|'\\'')*'|\S+/g)?.map((w) => (w.startsWith("'") ? w.slice(1, -1).replace(/'\\''/g, "'") : w)) ?? []

export const readCodexFacts = (env: Env, knownEmitters: readonly string[], now: number): CodexFacts => {
  const hooksFile = codexHooksFile(env)
  const configFile = codexConfigFile(env)
  const known = knownEmitters.map(spoolPathFor)
  let hooks: CodexFacts['hooks'] = null
  const text = readRegularIfExists(hooksFile, { cap: READ_CAP.settings, follow: true })
  if (isRefusal(text)) hooks = text.why
  else if (text !== null) {
    try {
      const parsed: unknown = JSON.parse(text)
      hooks = isJsonObject(parsed) ? parsed : 'not one JSON object'
    } catch {
      hooks = 'not valid JSON'
    }
  }
  const config = readRegularIfExists(configFile, { cap: READ_CAP.settings, follow: true })
  const missing = new Set<string>()
  if (isJsonObject(hooks) && isJsonObject(hooks.hooks)) {
    for (const groups of Object.values(hooks.hooks)) {
      for (const g of Array.isArray(groups) ? groups : []) {
        for (const h of isJsonObject(g) && Array.isArray(g.hooks) ? g.hooks : []) {
          if (!isOurCodexHandler(h, known) || !isJsonObject(h) || typeof h.command !== 'string') continue
          for (const w of words(h.command).slice(1)) if (w.startsWith('/') && !fs.existsSync(w)) missing.add(w)
        }
      }
    }
  }
  // Gemini CLI's events share the spool: only Codex's are this doctor's.
  const spoolAges = spoolAgesOf(spoolDir(sessionsDir(env)), 'codex', now)
  return { hooksFile, hooks, configFile, config: isRefusal(config) ? null : config, known, missing: [...missing], spoolAges }
}

export const codexDoctor = (ctx: DoctorContext): AgentCheck[] => deriveCodexChecks(readCodexFacts(ctx.env, ctx.known, ctx.now))
