/**
 * Replays past traffic through the real run API and scores held-out requests as it goes:
 * createToolSearch → for each session prepareRun → search the request → (when the tool wanted
 * is not among the hits, search again by its name, as a model rephrases) → call it → end.
 * The call succeeds, so the engine credits the request (learning/learner.ts). At each
 * checkpoint the held-out requests are ranked with `run.explain` (not recorded, teaches
 * nothing) in a run of another session of the same agent.
 */
import { createToolSearch, type ToolSearchEngine, pluginTools, type LearningObject } from "../../src/index.js";
import type { JudgedQuery } from "../lib/relevance.js";
import type { ReplaySet } from "./sets.js";

export interface CurvePoint {
  sessions: number;
  requests: number;
  top1: number;
  top5: number;
  mrr: number;
  /** Share of held-out requests whose first hit was put there by learning. */
  learnedTop1: number;
  /** Learned records held (active ones in ranking). */
  records: number;
  active: number;
}

export interface ReplayOptions {
  learning?: LearningObject;
  /** Session counts at which the held-out requests are scored (0 = before any replay). */
  checkpoints: readonly number[];
  /** Held-out requests scored per checkpoint (all by default). */
  evalLimit?: number;
  agentId?: string;
  /** Which tool a session calls for a request: the gold one (default), or another (poisoning). */
  target?: (q: JudgedQuery) => string;
  /** Session id prefix (distinct replays into one engine need distinct sessions). */
  sessionPrefix?: string;
}

export async function replayEngine(set: ReplaySet, learning: LearningObject | false = {}): Promise<ToolSearchEngine> {
  return createToolSearch({
    toolSearch: { mode: "tools", learning: learning === false ? false : { enabled: true, ...learning } },
    sources: [...set.plugins].map(([toolset, defs]) => pluginTools(toolset, defs)),
  });
}

/** One session of past traffic: search, rephrase by name when needed (not found, or only a weak guess: the model is told to rephrase), call. */
export async function replaySession(
  engine: ToolSearchEngine,
  sessionId: string,
  agentId: string,
  requests: readonly JudgedQuery[],
  target: (q: JudgedQuery) => string,
  tenant?: string,
): Promise<void> {
  const run = await engine.prepareRun({ sessionId, agentId, ...(tenant !== undefined ? { tenant } : {}) });
  try {
    for (const q of requests) {
      const hits = await run.search(q.query);
      for (const id of q.relevant.length > 1 ? q.relevant : [target(q)]) {
        if (!hits.some((h) => h.id === id && h.weak !== true)) await run.search(id.split(":").pop()!);
        await run.call(id, {});
      }
    }
  } finally {
    await run.end();
  }
}

export async function score(
  engine: ToolSearchEngine,
  queries: readonly JudgedQuery[],
  agentId: string,
  tenant?: string,
): Promise<Omit<CurvePoint, "sessions" | "requests" | "records" | "active">> {
  const run = await engine.prepareRun({ sessionId: `eval-${Math.random().toString(36).slice(2)}`, agentId, ...(tenant !== undefined ? { tenant } : {}) });
  let top1 = 0;
  let top5 = 0;
  let mrr = 0;
  let learnedTop1 = 0;
  try {
    for (const q of queries) {
      const hits = await run.explain(q.query, { limit: 10 });
      const wanted = new Set(q.relevant);
      const rank = hits.findIndex((h) => wanted.has(h.id));
      if (rank === 0) top1++;
      if (rank >= 0 && rank < 5) top5++;
      if (rank >= 0) mrr += 1 / (rank + 1);
      if (hits[0]?.learned) learnedTop1++;
    }
  } finally {
    await run.end();
  }
  const n = Math.max(1, queries.length);
  return { top1: top1 / n, top5: top5 / n, mrr: mrr / n, learnedTop1: learnedTop1 / n };
}

/** The curve: held-out scores after 0..N replayed sessions (one past request per session, cycling through them). */
export async function replayCurve(set: ReplaySet, options: ReplayOptions): Promise<CurvePoint[]> {
  const engine = await replayEngine(set, options.learning ?? {});
  const agentId = options.agentId ?? "replay";
  const target = options.target ?? ((q: JudgedQuery) => q.relevant[0]!);
  const heldOut = options.evalLimit !== undefined ? set.heldOut.slice(0, options.evalLimit) : set.heldOut;
  const points: CurvePoint[] = [];
  try {
    let done = 0;
    for (const checkpoint of [...options.checkpoints].sort((a, b) => a - b)) {
      for (; done < checkpoint; done++) {
        await replaySession(engine, `${options.sessionPrefix ?? "past"}-${done}`, agentId, [set.past[done % set.past.length]!], target);
      }
      await engine.learning?.flush();
      const stats = engine.learning?.stats();
      points.push({
        sessions: checkpoint,
        requests: checkpoint,
        ...(await score(engine, heldOut, agentId)),
        records: stats?.records ?? 0,
        active: stats?.active ?? 0,
      });
    }
  } finally {
    await engine.close();
  }
  return points;
}
