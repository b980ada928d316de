/**
 * What a library pays to use toolsearch at all (issue 34, row 1): a fresh process that imports
 * the package, creates an engine over one core tool and searches once, beside a bare `node -e 0`
 * (the floor: Node's own start), the two alternating, each timed from spawn to exit; the peak
 * RSS of each; the in-process time of the three steps; and which npm packages the root entry
 * loads (bench/lib/load-recorder.ts).
 *
 *   npm run build && node dist/bench/import/main.js [--quick] [--rounds N]
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Progress } from "../harness/progress.js";
import { median, round } from "../harness/stats.js";
import { packagesOf } from "../lib/load-recorder.js";

export interface ImportBenchResult {
  rounds: number;
  /** Spawn to exit, median of the rounds (ms). */
  toolsearchWallMs: number;
  nodeWallMs: number;
  /** Per round toolsearch ÷ node, median and range. */
  wallVsNode: { value: number; range: [number, number] };
  /** Peak RSS (MiB), median of the rounds. */
  toolsearchRssMiB: number;
  nodeRssMiB: number;
  rssVsNode: number;
  /** In-process, median of the rounds (ms): import, createToolSearch, the search, and the three together. */
  steps: { importMs: number; createMs: number; searchMs: number; totalMs: number };
  /** npm packages the three steps loaded. */
  packages: string[];
  /** Modules (files) they loaded. */
  modules: number;
}

interface ChildFigures {
  importMs: number;
  createMs: number;
  searchMs: number;
  totalMs: number;
  maxRssMiB: number;
}

/** `node -e 0`, saying only its peak RSS: the floor the library's start is measured against. */
const NODE_FLOOR = "process.stdout.write(String(process.resourceUsage().maxRSS / 1024))";

function timed(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): { ms: number; stdout: string } {
  const t0 = performance.now();
  const child = spawnSync(process.execPath, args, { cwd, env, encoding: "utf8", timeout: 60_000 });
  const ms = performance.now() - t0;
  if (child.status !== 0) throw new Error(`bench/import: node ${args.join(" ")} exited with ${child.status ?? child.signal}: ${child.stderr}`);
  return { ms, stdout: child.stdout };
}

export function runImportBench(options: { root: string; rounds: number; log: Progress }): ImportBenchResult {
  const child = path.join(options.root, "dist/bench/import/child.js");
  const wall = { toolsearch: [] as number[], node: [] as number[] };
  const rss = { toolsearch: [] as number[], node: [] as number[] };
  const steps: ChildFigures[] = [];
  const ratios: number[] = [];
  // One run first, unmeasured: the file cache is warm for both from then on.
  timed([child], options.root);
  for (let round = 0; round < options.rounds; round += 1) {
    const runNode = () => {
      const r = timed(["-e", NODE_FLOOR], options.root);
      wall.node.push(r.ms);
      rss.node.push(Number(r.stdout));
      return r.ms;
    };
    const runToolsearch = () => {
      const r = timed([child], options.root);
      const figures = JSON.parse(r.stdout.trim().split("\n").pop() ?? "") as ChildFigures;
      wall.toolsearch.push(r.ms);
      rss.toolsearch.push(figures.maxRssMiB);
      steps.push(figures);
      return r.ms;
    };
    // Alternating which goes first, so a burst of load from elsewhere does not always fall on one.
    let nodeMs: number;
    let toolsearchMs: number;
    if (round % 2 === 0) {
      nodeMs = runNode();
      toolsearchMs = runToolsearch();
    } else {
      toolsearchMs = runToolsearch();
      nodeMs = runNode();
    }
    ratios.push(toolsearchMs / nodeMs);
  }
  const recorded = recordLoads(child, options.root);
  const result: ImportBenchResult = {
    rounds: options.rounds,
    toolsearchWallMs: round(median(wall.toolsearch), 1),
    nodeWallMs: round(median(wall.node), 1),
    wallVsNode: { value: round(median(ratios), 3), range: [round(Math.min(...ratios), 3), round(Math.max(...ratios), 3)] },
    toolsearchRssMiB: round(median(rss.toolsearch), 1),
    nodeRssMiB: round(median(rss.node), 1),
    rssVsNode: round(median(rss.toolsearch) / median(rss.node), 3),
    steps: {
      importMs: round(median(steps.map((s) => s.importMs)), 1),
      createMs: round(median(steps.map((s) => s.createMs)), 1),
      searchMs: round(median(steps.map((s) => s.searchMs)), 1),
      totalMs: round(median(steps.map((s) => s.totalMs)), 1),
    },
    packages: packagesOf(recorded),
    modules: new Set(recorded).size,
  };
  options.log(
    `import + createToolSearch + search: ${result.toolsearchWallMs} ms spawn to exit (node -e 0: ${result.nodeWallMs} ms; ×${result.wallVsNode.value}), ` +
      `${result.steps.totalMs} ms in process, peak RSS ${result.toolsearchRssMiB} MiB (node -e 0: ${result.nodeRssMiB} MiB)`,
  );
  return result;
}

/** The child once more under the load recorder: every module it loaded. */
function recordLoads(child: string, root: string): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-loads-"));
  try {
    const file = path.join(dir, "loads.txt");
    const recorder = path.join(root, "dist/bench/lib/load-recorder.js");
    execFileSync(process.execPath, ["--import", recorder, child], { cwd: root, env: { ...process.env, TOOLSEARCH_LOAD_RECORD: file }, stdio: "ignore" });
    return readFileSync(file, "utf8").split("\n").filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function importTable(r: ImportBenchResult): string {
  return [
    `import("toolsearch") + createToolSearch (one core tool) + one search, ${r.rounds} rounds alternating with node -e 0:`,
    `  spawn to exit     toolsearch ${r.toolsearchWallMs.toFixed(1).padStart(7)} ms   node -e 0 ${r.nodeWallMs.toFixed(1).padStart(7)} ms   ratio ${r.wallVsNode.value.toFixed(2)} (${r.wallVsNode.range[0].toFixed(2)}…${r.wallVsNode.range[1].toFixed(2)})`,
    `  peak RSS          toolsearch ${r.toolsearchRssMiB.toFixed(1).padStart(7)} MiB  node -e 0 ${r.nodeRssMiB.toFixed(1).padStart(7)} MiB  ratio ${r.rssVsNode.toFixed(2)}`,
    `  in process        import ${r.steps.importMs.toFixed(1)} ms, createToolSearch ${r.steps.createMs.toFixed(1)} ms, search ${r.steps.searchMs.toFixed(1)} ms: ${r.steps.totalMs.toFixed(1)} ms`,
    `  loaded            ${r.modules} modules; packages: ${r.packages.join(", ") || "none"}`,
  ].join("\n");
}
