/**
 * What learning costs a search, at catalog scale, through `run.explain` (the whole ranking
 * path: catalog search, learned scores, fusion), one engine with learning on:
 * - "seal": Seal-Tools' catalog (4,076 tools, copied up to the size asked), its past requests
 *   replayed three times (2,100 sessions, so most pairs pass k = 3), its held-out requests timed;
 * - "registry": the search bench's catalog and request mix (bench/search/workload.ts: registry
 *   tools copied up to the size, 100 requests), each request taught in three sessions to its
 *   first hit, then timed.
 * Each is timed for the taught agent (learning applies) and for an agent with nothing learned
 * (the catalog path alone), beside the in-memory BM25 yardstick (bench/lib/memory-bm25.ts) over
 * the same docs and requests.
 */
import type { SearchDoc } from "../../src/index.js";
import { median } from "../harness/stats.js";
import { loadRegistryTools } from "../lib/shared-data.js";
import { memoryBm25 } from "../lib/memory-bm25.js";
import { makeQueries, scaleCatalog } from "../search/workload.js";
import { replayEngine, replaySession } from "./replay.js";
import { asPlugins, scaledSealSet, type ReplaySet } from "./sets.js";

export type LatencyWorkload = "seal" | "registry";

export interface LatencyRow {
  workload: LatencyWorkload;
  tools: number;
  requests: number;
  sessions: number;
  /** Learned records held, and active ones. */
  records: number;
  active: number;
  /** p50 of run.explain, ms: an agent with nothing learned, and the taught agent. */
  p50OffMs: number;
  p50OnMs: number;
  /** p50 of the in-memory BM25 yardstick over the same docs and requests, ms. */
  memoryBm25P50Ms: number;
  /** p50OnMs ÷ memoryBm25P50Ms. */
  onVsMemoryBm25: number;
}

const TEACHINGS = 3;
const LIMIT = 10;

/** The catalog (as a replay set, with its docs) and the requests timed. */
function workloadOf(dataDir: string, workload: LatencyWorkload, tools: number): { set: ReplaySet & { docs: SearchDoc[] }; requests: string[] } {
  if (workload === "registry") return registrySet(dataDir, tools);
  const set = scaledSealSet(dataDir, tools);
  return { set, requests: set.heldOut.map((q) => q.query) };
}

/** The registry workload: tools as plugin definitions (names made distinct); no judged requests (each is taught to its first hit). */
function registrySet(dataDir: string, tools: number): { set: ReplaySet & { docs: SearchDoc[] }; requests: string[] } {
  const base = loadRegistryTools(dataDir);
  const docs = scaleCatalog(base, tools).map((d, i) => ({ ...d, name: `t${i}_${d.name}`.slice(0, 64) }));
  return { set: { name: `registry×${tools}`, docs, plugins: asPlugins(docs, () => "registry").plugins, past: [], heldOut: [] }, requests: makeQueries(base) };
}

/** The median time of `work` per request over `rounds` passes, after one pass to warm up, ms. */
async function timeEach(requests: readonly string[], rounds: number, work: (request: string) => unknown): Promise<number> {
  for (const q of requests) await work(q);
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const q of requests) {
      const t = performance.now();
      await work(q);
      samples.push(performance.now() - t);
    }
  }
  return median(samples);
}

async function timeExplain(engine: Awaited<ReturnType<typeof replayEngine>>, agentId: string, requests: readonly string[], rounds: number): Promise<number> {
  const run = await engine.prepareRun({ sessionId: `time-${agentId}`, agentId });
  try {
    return await timeEach(requests, rounds, (q) => run.explain(q, { limit: LIMIT }));
  } finally {
    await run.end();
  }
}

/** Each request taught to its first hit, in TEACHINGS sessions of the taught agent. */
async function teachFirstHits(engine: Awaited<ReturnType<typeof replayEngine>>, requests: readonly string[]): Promise<number> {
  let sessions = 0;
  for (let t = 0; t < TEACHINGS; t++) {
    for (const q of requests) {
      const run = await engine.prepareRun({ sessionId: `teach-${sessions++}`, agentId: "taught" });
      try {
        const first = (await run.search(q))[0];
        if (first !== undefined) await run.call(first.id, {});
      } finally {
        await run.end();
      }
    }
  }
  return sessions;
}

export async function measureLatency(dataDir: string, workload: LatencyWorkload, tools: number, rounds = 3): Promise<LatencyRow> {
  const { set, requests } = workloadOf(dataDir, workload, tools);
  const engine = await replayEngine(set, {});
  try {
    let sessions = 0;
    if (workload === "seal") {
      for (let r = 0; r < TEACHINGS; r++) {
        for (const q of set.past) await replaySession(engine, `lat-${sessions++}`, "taught", [q], (x) => x.relevant[0]!);
      }
    } else sessions = await teachFirstHits(engine, requests);
    await engine.learning?.flush();
    const stats = engine.learning?.stats();
    // One after the other, each over all requests (a busy box moves them alike).
    const p50OffMs = await timeExplain(engine, "fresh", requests, rounds);
    const p50OnMs = await timeExplain(engine, "taught", requests, rounds);
    const yardstick = memoryBm25(set.docs);
    const memoryBm25P50Ms = await timeEach(requests, rounds, (q) => yardstick.search(q, LIMIT));
    return {
      workload,
      tools: set.docs.length,
      requests: requests.length,
      sessions,
      records: stats?.records ?? 0,
      active: stats?.active ?? 0,
      p50OffMs,
      p50OnMs,
      memoryBm25P50Ms,
      onVsMemoryBm25: p50OnMs / memoryBm25P50Ms,
    };
  } finally {
    await engine.close();
  }
}
