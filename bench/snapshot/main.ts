/**
 * Index snapshots: how fast a 10,000-tool catalog is ready from a snapshot on disk versus a fresh
 * build, as a new worker or replica would see it (fresh doc objects each round, so the
 * fingerprint is paid both ways; a new ToolIndexCache each round). Two loads: without a key,
 * where every posting is checked against the docs' analysis (the snapshot is not trusted), and
 * with `key` (indexCacheKey), where the MAC is checked and the postings' bounds only.
 * Targets: keyed ≤ 20% of a fresh build; checked ≤ 50% (its floor is one analysis of the
 * catalog, about half of a build now that a build writes no FTS5 rows: the price of not
 * trusting the file).
 *
 *   npm run build && node dist/bench/snapshot/main.js [--tools 10000] [--rounds 5] [--threshold 10000]
 *
 * `--threshold`: workerThreshold (catalogs this big are built, and their snapshots' postings
 * checked, in the worker thread).
 *
 * Prints one line per way and the ratios; exits 1 when either is over its target.
 * Measures the index cache's snapshot store on purpose: imports src/search/storage/ directly.
 */
import { mkdtempSync, rmSync, statSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ToolIndexCache } from "../../src/search/storage/index-cache.js";
import type { SearchDoc } from "../../src/index.js";

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const TOOLS = arg("--tools", 10_000);
const ROUNDS = arg("--rounds", 5);
const THRESHOLD = arg("--threshold", 10_000);

const WORDS = (
  "create list get update delete search send read write issue repo file folder mail message calendar event invoice payment " +
  "customer order ticket user team project branch commit weather forecast city map route flight hotel booking stock price " +
  "report chart table sheet row column document page note task reminder alarm timer image video audio playlist song album " +
  "translate summarize classify detect extract convert upload download share archive restore backup deploy build test log metric"
).split(" ");

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

function catalog(n: number): SearchDoc[] {
  const random = seeded(7);
  const pick = (): string => WORDS[Math.floor(random() * WORDS.length)]!;
  const sentence = (k: number): string => Array.from({ length: k }, pick).join(" ");
  return Array.from({ length: n }, (_, i) => {
    const name = `${pick()}_${pick()}_${i}`;
    return {
      id: `plugin:bench:${name}`,
      name,
      source: "plugin" as const,
      toolset: "bench",
      description: `${sentence(12)}.`,
      params: [
        { name: pick(), description: sentence(6) },
        { name: pick(), description: sentence(6) },
      ],
    } as SearchDoc;
  });
}

const KEY = "bench-snapshot-key-0123456789abcdef";

async function ready(docs: SearchDoc[], dir: string | undefined, key?: string): Promise<{ ms: number; via: string }> {
  const fresh = docs.map((d) => ({ ...d, params: d.params.map((p) => ({ ...p })) }));
  const cache = new ToolIndexCache(dir === undefined ? {} : { snapshots: { dir, ...(key !== undefined ? { key } : {}) } });
  const started = performance.now();
  const index = await cache.get(fresh, "bm25f", { workerThreshold: THRESHOLD });
  const ms = performance.now() - started;
  if (index.search("send mail message", { limit: 5 }).length === 0) throw new Error("the index answers nothing");
  const via = cache.lastBuild?.via ?? "?";
  await cache.close();
  return { ms, via };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const docs = catalog(TOOLS);
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-snap-bench-"));
  try {
    await ready(docs.slice(0, 10), undefined); // warm: SQLite's WASM module, the worker pool file
    const built: number[] = [];
    const loaded: number[] = [];
    let builtVia = "";
    for (let r = 0; r < ROUNDS; r++) {
      rmSync(dir, { recursive: true, force: true });
      const b = await ready(docs, undefined);
      built.push(b.ms);
      builtVia = b.via;
    }
    await ready(docs, dir); // writes the snapshot
    const file = readdirSync(dir).find((f) => f.endsWith(".tsidx"));
    const bytes = file === undefined ? 0 : statSync(path.join(dir, file)).size;
    for (let r = 0; r < ROUNDS; r++) {
      const l = await ready(docs, dir);
      if (l.via !== "snapshot") throw new Error(`expected a snapshot load, got ${l.via}`);
      loaded.push(l.ms);
    }
    rmSync(dir, { recursive: true, force: true });
    await ready(docs, dir, KEY); // writes a keyed snapshot
    const keyed: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const l = await ready(docs, dir, KEY);
      if (l.via !== "snapshot") throw new Error(`expected a keyed snapshot load, got ${l.via}`);
      keyed.push(l.ms);
    }
    const ratio = median(loaded) / median(built);
    const keyedRatio = median(keyed) / median(built);
    const list = (xs: number[]): string => xs.map((x) => x.toFixed(0)).join(", ");
    console.log(`index snapshot bench: ${TOOLS} tools, ${ROUNDS} rounds, workerThreshold ${THRESHOLD}, node ${process.version}`);
    console.log(`  fresh build (${builtVia}):             median ${median(built).toFixed(1)} ms  [${list(built)}]`);
    console.log(
      `  from snapshot, every posting checked:  median ${median(loaded).toFixed(1)} ms  [${list(loaded)}]  (${(bytes / 1_048_576).toFixed(1)} MiB file)`,
    );
    console.log(`  from snapshot, keyed (MAC, bounds):    median ${median(keyed).toFixed(1)} ms  [${list(keyed)}]`);
    console.log(`  snapshot / fresh = ${(ratio * 100).toFixed(1)}% checked (target ≤ 50%), ${(keyedRatio * 100).toFixed(1)}% keyed (target ≤ 20%)`);
    process.exitCode = ratio <= 0.5 && keyedRatio <= 0.2 ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
