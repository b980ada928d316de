/**
 * The folder graph of src/: one node per folder directly under src/ (`search`, `sandbox`, ...;
 * a subfolder counts as its top folder) and one per file directly in src/ (`errors.ts`,
 * `version.ts`). An edge is every relative `import`, `export … from`, `import()` and
 * `import("…")` type of a src/**\/*.ts file, read with the TypeScript compiler's own parser.
 * `src/index.ts` is the public entry and may import anything, so its imports are left out.
 */
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { API } from "typescript/unstable/sync";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SRC = resolve(ROOT, "src");

/** One import: the file that has it (relative to the root), its line, and what it names. */
export interface ImportSite {
  file: string;
  line: number;
  specifier: string;
  /** The imported file, relative to the root. */
  target: string;
}

export interface FolderGraph {
  nodes: string[];
  /** from → to → the imports that make the edge, in file order. */
  edges: Map<string, Map<string, ImportSite[]>>;
}

/** The node a file under src/ belongs to: its top folder, or the file's own name. */
function nodeOf(srcRelative: string): string {
  const slash = srcRelative.indexOf("/");
  return slash < 0 ? srcRelative : srcRelative.slice(0, slash);
}

/** Every relative import of the .ts files under `folder` (src/ unless named) that tsconfig.json compiles. */
export function readImports(folder = "src"): ImportSite[] {
  const under = resolve(ROOT, folder);
  const api = new API({ cwd: ROOT });
  try {
    const snapshot = api.updateSnapshot({ openProject: resolve(ROOT, "tsconfig.json") });
    const project = snapshot.getProjects()[0];
    if (!project) throw new Error("tsconfig.json opened no project");
    const sites: ImportSite[] = [];
    for (const fileName of project.program.getSourceFileNames()) {
      if (!fileName.startsWith(under + "/") || !fileName.endsWith(".ts") || fileName.endsWith(".d.ts")) continue;
      const sourceFile = project.program.getSourceFile(fileName);
      if (!sourceFile) throw new Error(`no source file for ${fileName}`);
      const lineStarts = sourceFile.getLineStarts();
      for (const literal of sourceFile.imports) {
        const specifier = (literal as unknown as { text: string }).text;
        if (!specifier.startsWith(".")) continue; // a package or node: builtin
        const target = resolve(dirname(fileName), specifier).replace(/\.js$/, ".ts");
        const start = literal.getStart(sourceFile);
        let line = 0;
        while (line + 1 < lineStarts.length && lineStarts[line + 1]! <= start) line++;
        sites.push({ file: relative(ROOT, fileName), line: line + 1, specifier, target: relative(ROOT, target) });
      }
    }
    return sites;
  } finally {
    api.close();
  }
}

export function folderGraph(sites: readonly ImportSite[]): FolderGraph {
  const nodes = new Set<string>();
  const edges = new Map<string, Map<string, ImportSite[]>>();
  for (const site of sites) {
    const fromRel = relative(SRC, resolve(ROOT, site.file));
    if (fromRel === "index.ts") continue;
    const toRel = relative(SRC, resolve(ROOT, site.target));
    if (toRel.startsWith("..")) continue; // outside src/ (wasm/, package.json)
    const from = nodeOf(fromRel);
    const to = nodeOf(toRel);
    nodes.add(from);
    nodes.add(to);
    if (from === to) continue;
    let out = edges.get(from);
    if (!out) edges.set(from, (out = new Map()));
    let list = out.get(to);
    if (!list) out.set(to, (list = []));
    list.push(site);
  }
  return { nodes: [...nodes].sort(), edges };
}

/** Strongly connected components with more than one node (Tarjan), each sorted, sorted by first node. */
export function cyclicComponents(graph: FolderGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of [...(graph.edges.get(node)?.keys() ?? [])].sort()) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of graph.nodes) if (!index.has(node)) visit(node);
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest path from → to inside `within` (breadth first, neighbours in name order). */
function shortestPath(graph: FolderGraph, from: string, to: string, within: ReadonlySet<string>): string[] | undefined {
  const previous = new Map<string, string>([[from, from]]);
  const queue = [from];
  while (queue.length > 0) {
    const node = queue.shift()!;
    if (node === to) {
      const path = [to];
      while (path[0] !== from) path.unshift(previous.get(path[0]!)!);
      return path;
    }
    for (const next of [...(graph.edges.get(node)?.keys() ?? [])].sort()) {
      if (within.has(next) && !previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return undefined;
}

/**
 * The cycles of a component, enough to use each of its edges once: for every edge a → b, the
 * shortest way back b → … → a. Each cycle is its node list, starting at its smallest name, with
 * the first node again at the end; duplicates are dropped.
 */
export function cyclesOf(graph: FolderGraph, component: readonly string[]): string[][] {
  const within = new Set(component);
  const seen = new Set<string>();
  const cycles: string[][] = [];
  for (const a of component) {
    for (const b of [...(graph.edges.get(a)?.keys() ?? [])].sort()) {
      if (!within.has(b)) continue;
      const back = shortestPath(graph, b, a, within);
      if (!back) continue;
      const ring = [a, ...back.slice(0, -1)];
      const smallest = ring.indexOf([...ring].sort()[0]!);
      const rotated = [...ring.slice(smallest), ...ring.slice(0, smallest)];
      const key = rotated.join(" ");
      if (seen.has(key)) continue;
      seen.add(key);
      cycles.push([...rotated, rotated[0]!]);
    }
  }
  return cycles.sort((x, y) => x.length - y.length || x.join(" ").localeCompare(y.join(" ")));
}

/** One line per hop of a cycle: `a → b  (file:line imports specifier)`, the hop's first import. */
export function describeCycle(graph: FolderGraph, cycle: readonly string[]): string {
  const hops: string[] = [];
  for (let i = 0; i + 1 < cycle.length; i++) {
    const site = graph.edges.get(cycle[i]!)!.get(cycle[i + 1]!)![0]!;
    hops.push(`  ${cycle[i]} → ${cycle[i + 1]}  (${site.file}:${site.line} imports "${site.specifier}")`);
  }
  return `${cycle.join(" → ")}\n${hops.join("\n")}`;
}
