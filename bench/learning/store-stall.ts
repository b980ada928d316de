/**
 * What the learned store costs the event loop every session shares, at its bounds: a store of
 * one tenant's default share (100,000 records) and of the default total (400,000, four tenants),
 * beside an empty one, through the public API (createToolSearch with indexCacheDir, run.feedback,
 * engine.learning). For each: the engine's start, the background load until `learning.ready()`,
 * a flush of 1,000 new records, an idle flush, a compaction (in its worker thread), an import of
 * 100,000 rows, and a search while the load runs. Each figure is a wall time and the longest
 * event-loop stall seen meanwhile (perf_hooks.monitorEventLoopDelay, 1 ms resolution, and the
 * longest gap between 1 ms timers).
 *
 *   npm run build && node --expose-gc dist/bench/learning/store-stall-main.js [--records 100000,400000]
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { coreTools, createToolSearch, journalLearningStore, type LearnedRow, type ToolDefinition } from "../../src/index.js";

const TOOLS = 1_000;
const AGENT = "main";

export interface StallFigure {
  ms: number;
  loopMaxMs: number;
}

export interface StoreStallResult {
  records: number;
  /** Records in the engine once the load is done (the model's bounds apply). */
  loaded: number;
  /** Records the measured flush wrote. */
  changed: number;
  tenants: number;
  journalBytes: number;
  start: StallFigure;
  load: StallFigure;
  searchDuringLoadMs: number;
  flush1k: StallFigure;
  idleFlush: StallFigure;
  compaction: StallFigure & { bytesBefore: number; bytesAfter: number };
  import100k: StallFigure;
}

const tool = (i: number): ToolDefinition => ({
  name: `tool_${i}`,
  description: `Synthetic tool number ${i} for the store bench.`,
  inputSchema: { type: "object", properties: {} },
  execute: () => ({ ok: i }),
});
const CATALOG = Array.from({ length: TOOLS }, (_, i) => tool(i));

/** Rows as a full store holds them: per tenant, `perTenant` records over the catalog's tools, hashed terms, eight contributors each. */
function syntheticRows(tenants: number, perTenant: number, now = Date.now()): LearnedRow[] {
  const rows: LearnedRow[] = [];
  const seen = Array.from({ length: 8 }, (_, i) => `c${i}`.padEnd(16, "x"));
  const termsPerTool = Math.ceil(perTenant / TOOLS);
  for (let t = 0; t < tenants; t++) {
    const scope = `tenant:t${t}:agent:${AGENT}`;
    for (let i = 0; i < perTenant; i++) {
      const toolIndex = Math.floor(i / termsPerTool);
      rows.push({ scope, tool: `core:tool_${toolIndex}`, term: `#term${i % termsPerTool}`.padEnd(17, "q"), count: 4, sessions: 5, at: now, seen });
    }
  }
  return rows;
}

/** Runs `work` and reports its wall time and the longest event-loop stall meanwhile. */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; figure: StallFigure }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 1);
  histogram.enable();
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  histogram.disable();
  clearInterval(timer);
  gap = Math.max(gap, performance.now() - last);
  return { value, figure: { ms: round(ms), loopMaxMs: round(Math.max(histogram.max / 1e6, gap)) } };
}

const round = (x: number): number => Math.round(x * 10) / 10;

async function engineOn(dir: string) {
  return createToolSearch({
    toolSearch: { mode: "tools", learning: { enabled: true, minSessions: 1, flushMs: 3_600_000 }, indexCacheDir: dir },
    sources: [coreTools(CATALOG)],
  });
}

/** One store size, measured from a fresh folder. */
export async function measureStore(records: number): Promise<StoreStallResult> {
  const tenants = Math.max(1, Math.ceil(records / 100_000));
  const perTenant = records === 0 ? 0 : Math.ceil(records / tenants);
  const dir = mkdtempSync(path.join(tmpdir(), "ts-store-stall-"));
  try {
    const filler = journalLearningStore({ dir, learning: { enabled: true } });
    let rows: LearnedRow[] | undefined = syntheticRows(tenants, perTenant);
    const records = rows.length;
    if (records > 0) await filler.append(rows);
    rows = undefined; // not held while the engine is measured
    await filler.close?.();
    const journal = path.join(dir, "learned.journal");
    const journalBytes = records > 0 ? statSync(journal).size : 0;
    globalThis.gc?.();

    const start = await measured(() => engineOn(dir));
    const engine = start.value;
    let searchDuringLoadMs = 0;
    const load = await measured(async () => {
      const run = await engine.prepareRun({ sessionId: "probe", agentId: AGENT, tenant: "t0" });
      const t0 = performance.now();
      await run.search("synthetic tool number 7");
      searchDuringLoadMs = round(performance.now() - t0);
      await run.end();
      await engine.learning!.ready();
    });

    const loaded = engine.learning!.stats().records;
    // 125 sessions teach 8 tools each (3 new words a request): the flush writes what they changed.
    for (let s = 0; s < 125; s++) {
      const run = await engine.prepareRun({ sessionId: `teach-${s}`, agentId: AGENT, tenant: "t0" });
      for (let k = 0; k < 8; k++) await run.feedback(`zorblat${s} quux${k} frobnicate`, `core:tool_${(s * 8 + k) % TOOLS}`);
      await run.end();
    }
    const changed = engine.learning!.stats().pending;
    const flush1k = await measured(() => engine.learning!.flush());
    const idleFlush = await measured(() => engine.learning!.flush());

    const compactor = journalLearningStore({ dir, learning: { enabled: true } });
    const compaction = await measured(async () =>
      compactor.compact!({ tools: CATALOG.map((t) => `core:${t.name}`), toolPrefixes: [], terms: { recordTerms: false } }),
    );
    await compactor.close?.();

    const other = syntheticRows(1, 100_000).map((r) => ({ ...r, scope: `tenant:imported:agent:${AGENT}` }));
    const import100k = await measured(async () => {
      await engine.learning!.import({ format: 1, rows: other });
      await engine.learning!.flush();
    });
    await engine.close();
    return {
      records,
      loaded,
      changed,
      tenants: records > 0 ? tenants : 0,
      journalBytes,
      start: start.figure,
      load: load.figure,
      searchDuringLoadMs,
      flush1k: flush1k.figure,
      idleFlush: idleFlush.figure,
      compaction: { ...compaction.figure, bytesBefore: compaction.value?.bytesBefore ?? 0, bytesAfter: compaction.value?.bytesAfter ?? 0 },
      import100k: import100k.figure,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
