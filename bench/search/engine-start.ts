/**
 * An engine over a big catalog through the public path (issue 34, row 4), beside minisearch's
 * bare build of the same tools, each in a fresh process, the two alternating:
 * - toolsearch: the registry's tools (bench/search/workload.ts scales them up to the size) as
 *   plugin tools, one plugin per registry package, `createToolSearch` → `prepareRun` → one
 *   search; the time from createToolSearch to the search's answer;
 * - minisearch: `new MiniSearch({ fields: ["name", "description"] })` and `addAll` of the same
 *   tools' names and descriptions (what the registry gives: no schemas), then the same search.
 * RSS is read after a forced GC, over the process's RSS with the tools already loaded (so it is
 * the engine's or the index's own), after the build and again once settled.
 *
 *   npm run build && node dist/bench/search/engine-start.js [tools=100000] [--rounds 3]
 *   node --expose-gc dist/bench/search/engine-start.js --one toolsearch|minisearch N   (one child)
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import MiniSearch from "minisearch";
import { createToolSearch, pluginTools, type CatalogSource, type ToolDefinition, type SearchDoc } from "../../src/index.js";
import { median, round } from "../harness/stats.js";
import { loadRegistryTools, sharedDataDir } from "../lib/shared-data.js";
import { MiB, collectGarbage } from "../lib/stats.js";
import { scaleCatalog } from "./workload.js";

export type EngineStartSide = "toolsearch" | "minisearch";

export interface EngineStartOne {
  side: EngineStartSide;
  tools: number;
  /** Start of the build to the first search's answer (ms). */
  ms: number;
  /** RSS over the process's with the tools loaded (MiB): after the build (GC'd), and settled 2 s later. */
  rssAfterMiB: number;
  rssSettledMiB: number;
}

export interface EngineStartResult {
  tools: number;
  rounds: number;
  toolsearch: { ms: number; rssAfterMiB: number; rssSettledMiB: number };
  minisearch: { ms: number; rssAfterMiB: number; rssSettledMiB: number };
  /** Per round toolsearch ÷ minisearch build time: median and range. */
  timeVsMinisearch: { value: number; range: [number, number] };
  /** toolsearch's settled RSS ÷ minisearch's (medians). */
  rssVsMinisearch: number;
}

const QUERY = "send an email to the team about the release";

/** The scaled registry docs, each package's tools as one plugin (its id made of the characters a plugin id takes). */
function catalog(dataDir: string, tools: number): { docs: SearchDoc[]; sources: CatalogSource[] } {
  const docs = scaleCatalog(loadRegistryTools(dataDir), tools);
  const byPlugin = new Map<string, ToolDefinition[]>();
  const pluginOf = new Map<string, string>();
  for (const doc of docs) {
    let plugin = pluginOf.get(doc.toolset);
    if (plugin === undefined) {
      plugin = `${pluginOf.size}-${doc.toolset.replace(/[^A-Za-z0-9._-]+/g, "-")}`.slice(0, 64);
      pluginOf.set(doc.toolset, plugin);
    }
    const list = byPlugin.get(plugin) ?? [];
    byPlugin.set(plugin, list);
    list.push({ name: doc.name, description: doc.description, inputSchema: { type: "object", properties: {} }, execute: () => null });
  }
  return { docs, sources: [...byPlugin].map(([plugin, definitions]) => pluginTools(plugin, definitions)) };
}

async function one(side: EngineStartSide, tools: number): Promise<EngineStartOne> {
  const dataDir = sharedDataDir();
  if (dataDir === undefined) throw new Error("bench/search: ../shared/data (toolsdk-registry) not found; set TOOLSEARCH_DATA");
  const { docs, sources } = catalog(dataDir, tools);
  collectGarbage();
  const base = process.memoryUsage.rss();
  const t0 = performance.now();
  let close: () => Promise<void>;
  if (side === "toolsearch") {
    const engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources });
    const run = await engine.prepareRun({ sessionId: "bench" });
    await run.search(QUERY);
    close = async () => {
      await run.end();
      await engine.close();
    };
  } else {
    const index = new MiniSearch<{ id: string; name: string; description: string }>({ fields: ["name", "description"] });
    index.addAll(docs.map((d) => ({ id: d.id, name: d.name, description: d.description })));
    index.search(QUERY);
    close = async () => index.removeAll();
  }
  const ms = performance.now() - t0;
  collectGarbage();
  const after = process.memoryUsage.rss();
  await sleep(2_000);
  collectGarbage();
  const settled = process.memoryUsage.rss();
  await close();
  return { side, tools, ms: Math.round(ms), rssAfterMiB: Math.round((after - base) / MiB), rssSettledMiB: Math.round((settled - base) / MiB) };
}

/** `rounds` pairs of fresh children, alternating which side goes first. */
export function measureEngineStart(options: { tools: number; rounds: number; log?: (line: string) => void }): EngineStartResult {
  const self = fileURLToPath(import.meta.url);
  const child = (side: EngineStartSide): EngineStartOne =>
    JSON.parse(
      execFileSync(process.execPath, ["--expose-gc", self, "--one", side, String(options.tools)], {
        encoding: "utf8",
        maxBuffer: 1 << 20,
        stdio: ["ignore", "pipe", "inherit"],
      })
        .trim()
        .split("\n")
        .pop() ?? "",
    ) as EngineStartOne;
  const ours: EngineStartOne[] = [];
  const theirs: EngineStartOne[] = [];
  for (let r = 0; r < options.rounds; r++) {
    const order: EngineStartSide[] = r % 2 === 0 ? ["toolsearch", "minisearch"] : ["minisearch", "toolsearch"];
    for (const side of order) {
      const result = child(side);
      (side === "toolsearch" ? ours : theirs).push(result);
      options.log?.(`${side} ${options.tools}: ${result.ms} ms, +${result.rssAfterMiB} MiB (+${result.rssSettledMiB} settled)`);
    }
  }
  const med = (xs: EngineStartOne[]) => ({
    ms: median(xs.map((x) => x.ms)),
    rssAfterMiB: median(xs.map((x) => x.rssAfterMiB)),
    rssSettledMiB: median(xs.map((x) => x.rssSettledMiB)),
  });
  const ratios = ours.map((o, i) => o.ms / theirs[i]!.ms);
  const toolsearch = med(ours);
  const minisearch = med(theirs);
  return {
    tools: options.tools,
    rounds: options.rounds,
    toolsearch,
    minisearch,
    timeVsMinisearch: { value: round(median(ratios), 3), range: [round(Math.min(...ratios), 3), round(Math.max(...ratios), 3)] },
    rssVsMinisearch: round(toolsearch.rssSettledMiB / minisearch.rssSettledMiB, 3),
  };
}

export function engineStartTable(r: EngineStartResult): string {
  return [
    `an engine over ${r.tools} tools (createToolSearch → first search) beside minisearch's bare build, ${r.rounds} rounds of fresh processes:`,
    `  toolsearch  ${String(r.toolsearch.ms).padStart(6)} ms   +${r.toolsearch.rssAfterMiB} MiB after the build, +${r.toolsearch.rssSettledMiB} settled`,
    `  minisearch  ${String(r.minisearch.ms).padStart(6)} ms   +${r.minisearch.rssAfterMiB} MiB after the build, +${r.minisearch.rssSettledMiB} settled`,
    `  time ${r.timeVsMinisearch.value.toFixed(2)}× minisearch's (${r.timeVsMinisearch.range[0].toFixed(2)}…${r.timeVsMinisearch.range[1].toFixed(2)}), settled RSS ${r.rssVsMinisearch.toFixed(2)}×`,
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--one");
  if (at !== -1) {
    console.log(JSON.stringify(await one(args[at + 1] as EngineStartSide, Number(args[at + 2]))));
  } else {
    const { positiveIntArg } = await import("../harness/args.js");
    const tools = Number(args.find((a) => /^\d+$/.test(a)) ?? 100_000);
    console.log(engineStartTable(measureEngineStart({ tools, rounds: positiveIntArg("--rounds", 3), log: (line) => process.stderr.write(`${line}\n`) })));
  }
}
