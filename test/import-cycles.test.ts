// No import cycle in lib/: every module's imports (static, type-only and dynamic alike) are
// read with the TypeScript compiler's own pre-processor, and the graph must have no cycle.
import * as fs from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const LIB = join(ROOT, 'lib')

const listSources = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return listSources(path)
    return /\.(c|m)?ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : []
  })

/** The lib/ files one file imports, by path relative to the repository. */
const importsOf = (file: string): string[] => {
  const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true)
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolve(dirname(file), spec).replace(/\.js$/, '.ts').replace(/\.cjs$/, '.cts'))
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
  t.same(findCycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])), [['a', 'b', 'c']])
  t.same(findCycles(new Map([['a', ['a']]])), [['a']])
  t.same(findCycles(new Map([['a', ['b']], ['b', []]])), [])
})

t.test('lib/ has no import cycle', async (t) => {
  const files = listSources(LIB)
  const graph = new Map(files.map((f) => [relative(ROOT, f), importsOf(f)]))
  t.ok(graph.size > 40, `read ${graph.size} modules`)
  t.ok([...graph.values()].reduce((n, deps) => n + deps.length, 0) > 100, 'and their imports')
  t.same(findCycles(graph), [], 'no module reaches itself through its imports')
})
