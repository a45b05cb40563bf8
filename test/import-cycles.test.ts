// No import cycle in lib/ and no import up a layer: every module's imports (static, type-only
// and dynamic alike) are read with the TypeScript compiler's own pre-processor; the graph must
// have no cycle, and every import must stay in its layer or run down the order that
// docs/design.md §9 lists (read from that very list, so the page and the rule cannot differ).
import * as fs from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const LIB = join(ROOT, 'lib')

/** lib/'s modules: TypeScript sources and the generated JavaScript ones (their .d.ts aside). */
const listSources = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return listSources(path)
    return /\.(c|m)?[tj]s$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : []
  })

/** An import's file: the TypeScript source a `.js` specifier stands for, else the JavaScript file itself. */
const resolveSpecifier = (from: string, spec: string): string => {
  const path = resolve(dirname(from), spec)
  const source = path.replace(/\.js$/, '.ts').replace(/\.cjs$/, '.cts')
  return fs.existsSync(source) ? source : path
}

/** The lib/ files one file imports, by path relative to the repository. */
const importsOf = (file: string): string[] => {
  const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true)
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolveSpecifier(file, spec))
    .filter((path) => path.startsWith(LIB + '/') && fs.existsSync(path))
    .map((path) => relative(ROOT, path))
}

/** Strongly connected components with more than one module, or a module importing itself (Tarjan). */
export const findCycles = (graph: ReadonlyMap<string, readonly string[]>): string[][] => {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (v: string): void => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = []
      for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
        onStack.delete(w)
        component.push(w)
        if (w === v) break
      }
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort())
    }
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return cycles
}

t.test('the cycle finder finds cycles', async (t) => {
  t.same(
    findCycles(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a']],
        ['d', ['a']],
      ]),
    ),
    [['a', 'b', 'c']],
  )
  t.same(findCycles(new Map([['a', ['a']]])), [['a']])
  t.same(
    findCycles(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
  )
})

t.test('lib/ has no import cycle', async (t) => {
  const files = listSources(LIB)
  const graph = new Map(files.map((f) => [relative(ROOT, f), importsOf(f)]))
  t.ok(graph.size > 40, `read ${graph.size} modules`)
  t.ok([...graph.values()].reduce((n, deps) => n + deps.length, 0) > 100, 'and their imports')
  t.same(findCycles(graph), [], 'no module reaches itself through its imports')
})

export interface Layer {
  name: string
  /** Files (`lib/x.ts`) and folders (`lib/x/`) of the layer. */
  paths: string[]
}

/** The layers, lowest first, from the fenced block after the `<!-- layers` marker of a page. */
export const parseLayers = (page: string): Layer[] => {
  const block = /<!-- layers[^>]*-->\s*```text\n([\s\S]*?)```/.exec(page)
  if (!block) return []
  return (block[1] ?? '')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((words) => words.length > 1)
    .map(([name, ...paths]) => ({ name: name!, paths }))
}

/** The index of the layer a file is in (by the longest path that holds it), or -1. */
export const layerOf = (layers: readonly Layer[], file: string): number => {
  let best = -1
  let bestLength = -1
  layers.forEach((layer, i) => {
    for (const p of layer.paths) {
      const holds = p.endsWith('/') ? file.startsWith(p) : file === p
      if (holds && p.length > bestLength) [best, bestLength] = [i, p.length]
    }
  })
  return best
}

/** Every import that runs up the order, as `from (layer) -> to (layer)` lines; and files no layer holds. */
export const findUpwardImports = (
  layers: readonly Layer[],
  graph: ReadonlyMap<string, readonly string[]>,
): { upward: string[]; unplaced: string[] } => {
  const upward: string[] = []
  const unplaced = new Set<string>()
  for (const [from, deps] of graph) {
    const a = layerOf(layers, from)
    if (a < 0) unplaced.add(from)
    for (const to of deps) {
      const b = layerOf(layers, to)
      if (b < 0) unplaced.add(to)
      else if (a >= 0 && b > a) upward.push(`${from} (${layers[a]!.name}) -> ${to} (${layers[b]!.name})`)
    }
  }
  return { upward: upward.sort(), unplaced: [...unplaced].sort() }
}

const DESIGN = fs.readFileSync(join(ROOT, 'docs/design.md'), 'utf8')

t.test('the layer rule finds an import that runs up, and a file no layer holds', async (t) => {
  const layers = parseLayers('<!-- layers -->\n```text\nlow   lib/a.ts lib/low/\nhigh  lib/high/\n```\n')
  t.same(
    layers.map((l) => l.name),
    ['low', 'high'],
  )
  const graph = new Map([
    ['lib/a.ts', ['lib/low/b.ts']],
    ['lib/low/b.ts', ['lib/high/c.ts']],
    ['lib/high/c.ts', ['lib/a.ts', 'lib/high/d.ts']],
    ['lib/elsewhere.ts', []],
  ])
  t.same(findUpwardImports(layers, graph), { upward: ['lib/low/b.ts (low) -> lib/high/c.ts (high)'], unplaced: ['lib/elsewhere.ts'] })
  // A folder inside a layer's folder may be placed in a layer of its own: the longest path decides.
  t.equal(layerOf(parseLayers('<!-- layers -->\n```text\nx lib/q/\ny lib/q/r/\n```'), 'lib/q/r/s.ts'), 1)
})

t.test('every import in lib/ runs down the layers of docs/design.md §9', async (t) => {
  const layers = parseLayers(DESIGN)
  t.ok(layers.length >= 10, `read ${layers.length} layers from docs/design.md`)
  const files = listSources(LIB)
  const graph = new Map(files.map((f) => [relative(ROOT, f), importsOf(f)]))
  const { upward, unplaced } = findUpwardImports(layers, graph)
  t.same(unplaced, [], 'every file of lib/ is in a layer')
  t.same(upward, [], 'no import runs up a layer')
})

t.test('no command imports another: what commands share lives below them (lib/navigate/)', async (t) => {
  const commands = listSources(join(LIB, 'commands')).map((f) => relative(ROOT, f))
  t.ok(commands.length > 10, `read ${commands.length} commands`)
  const across = commands.flatMap((f) =>
    importsOf(join(ROOT, f))
      .filter((to) => to.startsWith('lib/commands/'))
      .map((to) => `${f} -> ${to}`),
  )
  t.same(across, [], 'each command imports only from lower layers')
})
