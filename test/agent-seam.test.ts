// The agent seam stays closed (docs/design.md §8.1): outside lib/agents/<agent>/, no source file
// names an agent's id or imports from an agent's folder, except the three registries, which list
// each agent on one line; no agent's folder imports from another's. So a new agent is its folder,
// one line per registry and `npm run schemas`, and touches no core file. The sources are read as
// TypeScript (string literals and module specifiers, not comments or prose).
import * as fs from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'
import { AGENT_IDS } from '../lib/agents/index.js'
import { AGENT_HOOKS } from '../lib/agents/hook-registry.js'
import { SETUPS } from '../lib/agents/setup-registry.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const AGENTS_DIR = 'lib/agents'
/** The files that list every agent, one line each. */
const REGISTRIES = ['lib/agents/hook-registry.ts', 'lib/agents/index.ts', 'lib/agents/setup-registry.ts']
/** What the project runs: the library, the emitter, the executables. */
const SOURCE_DIRS = ['lib', 'hooks', 'bin']

interface Source {
  /** Relative to the repository, with `/`. */
  path: string
  text: string
}

const listSources = (dir: string): Source[] =>
  fs.readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`
    if (e.isDirectory()) return listSources(path)
    // Generated checks hold the record schema's agent enum, written by `npm run schemas` from the registries.
    if (!/\.(c|m)?ts$/.test(e.name) || e.name.includes('.generated.')) return []
    return [{ path, text: fs.readFileSync(join(ROOT, path), 'utf8') }]
  })

/** The agent folder a repository path lies in (`lib/agents/<agent>/…`), or null. */
const agentFolderOf = (path: string): string | null => {
  const m = new RegExp(`^${AGENTS_DIR}/([^/]+)/`).exec(path)
  return m ? m[1]! : null
}

/** Every module specifier (import, export … from, import()) and every other string literal of a source. */
const readStrings = (src: Source): { specifiers: string[]; literals: string[] } => {
  const file = ts.createSourceFile(src.path, src.text, ts.ScriptTarget.Latest, false)
  const specifiers: string[] = []
  const literals: string[] = []
  const seen = new Set<ts.Node>()
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      specifiers.push(node.moduleSpecifier.text)
      seen.add(node.moduleSpecifier)
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      specifiers.push(node.arguments[0].text)
      seen.add(node.arguments[0])
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      specifiers.push(node.argument.literal.text)
      seen.add(node.argument.literal)
    } else if (ts.isStringLiteralLike(node) && !seen.has(node)) literals.push(node.text)
    else if (ts.isTemplateExpression(node)) literals.push(node.head.text, ...node.templateSpans.map((s) => s.literal.text))
    ts.forEachChild(node, visit)
  }
  visit(file)
  return { specifiers, literals }
}

/**
 * Pure: how each source leaks through the seam. `agents`: the agent folders' names, which are
 * their ids. A file in an agent's folder may name its agent and import its own folder.
 */
const findSeamLeaks = (sources: readonly Source[], agents: readonly string[]): string[] => {
  const leaks: string[] = []
  for (const src of sources) {
    const own = agentFolderOf(src.path)
    const { specifiers, literals } = readStrings(src)
    for (const spec of specifiers) {
      if (!spec.startsWith('.')) continue
      const target = relative(ROOT, resolve(ROOT, dirname(src.path), spec))
        .split('\\')
        .join('/')
      const into = agentFolderOf(target)
      if (into !== null && into !== own && !REGISTRIES.includes(src.path))
        leaks.push(`${src.path} imports ${spec} (agent ${into}'s folder)`)
    }
    if (own !== null) continue
    for (const text of literals) if (agents.includes(text)) leaks.push(`${src.path} names the agent ${JSON.stringify(text)}`)
  }
  return leaks
}

const agentFolders = fs
  .readdirSync(join(ROOT, AGENTS_DIR), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)

t.test('every agent folder is a registered agent, named by its id, on every registry', async (t) => {
  t.same([...agentFolders].sort(), [...AGENT_IDS].sort(), 'lib/agents/<id>/ for each agent, and nothing else there')
  t.same(
    AGENT_HOOKS.map((a) => a.id),
    AGENT_IDS,
    'the emitter knows the same agents, in the same order',
  )
  t.same(
    SETUPS.map((a) => a.id),
    AGENT_IDS,
    'so do install, uninstall and doctor',
  )
})

t.test('findSeamLeaks catches a core file that names an agent or imports from its folder', async (t) => {
  const agents = ['codex', 'gemini']
  const leaks = (path: string, text: string): string[] => findSeamLeaks([{ path, text }], agents)
  t.same(leaks('lib/commands/x.ts', `const a = 'codex'`), [`lib/commands/x.ts names the agent "codex"`])
  t.same(leaks('lib/commands/x.ts', 'if (id === `gemini`) run()'), [`lib/commands/x.ts names the agent "gemini"`], 'a template literal')
  t.same(leaks('lib/commands/x.ts', `import { a } from '../agents/codex/settings-hooks.js'`), [
    `lib/commands/x.ts imports ../agents/codex/settings-hooks.js (agent codex's folder)`,
  ])
  t.same(
    leaks('lib/commands/x.ts', `export { a } from '../agents/codex/doctor.js'`),
    [`lib/commands/x.ts imports ../agents/codex/doctor.js (agent codex's folder)`],
    'a re-export',
  )
  t.same(
    leaks('lib/commands/x.ts', `const m = await import('../agents/gemini/index.js')`),
    [`lib/commands/x.ts imports ../agents/gemini/index.js (agent gemini's folder)`],
    'a dynamic import',
  )
  t.same(
    leaks('lib/commands/x.ts', `type T = import('../agents/gemini/types.js').T`),
    [`lib/commands/x.ts imports ../agents/gemini/types.js (agent gemini's folder)`],
    'a type import',
  )
  t.same(
    leaks('lib/agents/gemini/x.ts', `import { a } from '../codex/paths.js'`),
    [`lib/agents/gemini/x.ts imports ../codex/paths.js (agent codex's folder)`],
    "one agent's folder from another's",
  )
  t.same(
    leaks('lib/agents/codex/x.ts', `import { a } from './paths.js'\nconst id = 'codex'`),
    [],
    'an agent names itself and imports its own folder',
  )
  t.same(leaks('lib/agents/index.ts', `import { codex } from './codex/index.js'`), [], 'a registry lists the agent')
  t.same(leaks('lib/commands/x.ts', `// codex and gemini in a comment\nconst s = 'the codex hook'`), [], 'prose and comments are not ids')
})

t.test('no core file names an agent or imports from its folder', async (t) => {
  const sources = SOURCE_DIRS.flatMap(listSources)
  t.ok(sources.length > 100, `${sources.length} source files read`)
  t.same(findSeamLeaks(sources, agentFolders), [])
})
