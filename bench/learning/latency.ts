/**
 * What learning costs a search, at catalog scale: Seal-Tools' catalog (4,076 tools) and copies
 * of it up to 100,000, one engine with learning on. Its past requests are replayed three times
 * (2,100 sessions, so that most pairs pass k = 3) into one agent's scope; then the held-out
 * requests are timed through `run.explain` (the whole ranking path: catalog search, learned
 * scores, fusion) for that agent (learning applies) and for an agent with nothing learned
 * (the catalog path alone), beside the in-memory BM25 yardstick (bench/lib/memory-bm25.ts)
 * over the same docs and requests.
 */
import { memoryBm25 } from "../lib/memory-bm25.js";
import { replayEngine, replaySession } from "./replay.js";
import { scaledSealSet } from "./sets.js";

export interface LatencyRow {
  tools: number;
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

const REPLAYS = 3;
const LIMIT = 10;

function p50(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export async function measureLatency(dataDir: string, tools: number, rounds = 3): Promise<LatencyRow> {
  const set = scaledSealSet(dataDir, tools);
  const engine = await replayEngine(set, {});
  try {
    let sessions = 0;
    for (let r = 0; r < REPLAYS; r++) {
      for (const q of set.past) await replaySession(engine, `lat-${sessions++}`, "taught", [q], (x) => x.relevant[0]!);
    }
    await engine.learning?.flush();
    const stats = engine.learning?.stats();
    const queries = set.heldOut.map((q) => q.query);
    const time = async (agentId: string): Promise<number> => {
      const run = await engine.prepareRun({ sessionId: `time-${agentId}`, agentId });
      const samples: number[] = [];
      try {
        for (const q of queries) await run.explain(q, { limit: LIMIT }); // warm up
        for (let round = 0; round < rounds; round++) {
          for (const q of queries) {
            const t = performance.now();
            await run.explain(q, { limit: LIMIT });
            samples.push(performance.now() - t);
          }
        }
      } finally {
        await run.end();
      }
      return p50(samples);
    };
    // Interleaved rounds would be fairer on a busy box; the three are one after another, each over all requests.
    const p50OffMs = await time("fresh");
    const p50OnMs = await time("taught");
    const yardstick = memoryBm25(set.docs);
    for (const q of queries) yardstick.search(q, LIMIT);
    const samples: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const q of queries) {
        const t = performance.now();
        yardstick.search(q, LIMIT);
        samples.push(performance.now() - t);
      }
    }
    const memoryBm25P50Ms = p50(samples);
    return { tools: set.docs.length, sessions, records: stats?.records ?? 0, active: stats?.active ?? 0, p50OffMs, p50OnMs, memoryBm25P50Ms, onVsMemoryBm25: p50OnMs / memoryBm25P50Ms };
  } finally {
    await engine.close();
  }
}
