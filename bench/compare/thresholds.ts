/**
 * How far each kind of figure may move the wrong way before `--compare` fails the run: the one
 * table of thresholds. A figure moving the right way never fails (past the margin it is reported
 * as improved, a hint to refresh the baseline).
 *
 * - absolute: fail when now is worse than the baseline by more than `margin` (in the figure's unit).
 * - relative: fail when now is worse than the baseline by more than `margin` × |baseline|.
 * - factor:   fail when now is worse than the baseline by more than a factor 1 + `margin`
 *             (now ÷ baseline for smaller-is-better, baseline ÷ now for bigger-is-better), so a
 *             ratio that doubles (or halves, when bigger is better) is a change of factor 2.
 *
 * Deterministic figures (bytes, tokens, counts, relevance scores) are the same in every run of
 * the same code, so their margins only absorb intended small edits. Timing figures are ratios
 * measured in the same run, each a median of repeats in the quick variant; their margins come
 * from the run-to-run spread measured over repeated quick runs on the 2-core CI box
 * (`node dist/bench/compare/spread.js`; see bench/README.md, "Comparing with a baseline"): about
 * twice the widest spread seen, never below it. Where that stays below 1 (pool vs floor, search
 * up to 2,000 tools, gateway CPU per turn), a 2× regression fails; search over larger indexes,
 * wall-clock gateway throughput and the stall ratios move too much with the load of a shared
 * 2-core box for that, and catch gross regressions only.
 */
import type { FigureKind } from "./figures.js";

export interface Threshold {
  by: "absolute" | "relative" | "factor";
  margin: number;
  /** Why this margin, in a line (printed by `--compare` and in the docs). */
  why: string;
}

export const THRESHOLDS: Readonly<Record<FigureKind, Threshold>> = {
  bytes: {
    by: "relative",
    margin: 0.01,
    why: "deterministic (identical in every quick run); +1% lets a reworded instruction through, not a schema more per tool",
  },
  tokens: { by: "relative", margin: 0.01, why: "deterministic (o200k over the request JSON), as bytes" },
  count: { by: "absolute", margin: 0, why: "deterministic integers (round trips, schemas up front, the crossover size): any worse value fails" },
  relevance: { by: "absolute", margin: 0.01, why: "deterministic over a fixed query sample; 0.01 is less than one query of 70 leaving the top k" },
  heap: { by: "absolute", margin: 8, why: "heap growth after forced GC ran 2.9–3.5 MB over 18 quick runs; a schema kept per run adds tens of MB" },
  "ratio-import": {
    by: "factor",
    margin: 0.5,
    why: "a fresh process's import + createToolSearch + search ÷ node -e 0, spawn to exit, median of alternating rounds; loading the provider and MCP SDKs again is ×4",
  },
  "ratio-memory": {
    by: "factor",
    margin: 0.15,
    why: "peak or settled RSS over a reference's measured in the same run (node -e 0; minisearch's build of the same tools): moves by a few % between runs; the SDKs loaded again, or a copy of the catalog kept, add 30% or more",
  },
  "ratio-engine-build": {
    by: "factor",
    margin: 0.7,
    why: "createToolSearch → first search over a big catalog ÷ minisearch's bare build, fresh processes alternating, median of the rounds: wall time on a loaded box; a build pass repeated (a snapshot round trip, analysis twice) is ×1.5 or more",
  },
  "ratio-code-mode": { by: "factor", margin: 0.6, why: "pool ÷ bare-spawn floor, median of 6 alternating rounds: spread 35% between quick runs" },
  "ratio-code-mode-cpu": {
    by: "factor",
    margin: 0.9,
    why: "this process's CPU per body ÷ the children's, median of the rounds (issue 21): its spread over repeated quick runs is not measured yet; forking here again instead of in the spawner is ×2.3, so ×1.9 fails",
  },
  "ratio-code-mode-api": {
    by: "factor",
    margin: 0.9,
    why: "this process's CPU per code body through run.handleToolCall ÷ the same search, describe and call made directly, median of alternating rounds (issue 34): bridge calls paying their telemetry events and spans again, or a frame serialised twice, is ×1.5–2; a 2× regression fails",
  },
  "ratio-search": {
    by: "factor",
    margin: 0.7,
    why: "backend ÷ baseline backend query p50 up to 2,000 tools, median of 3 alternating pairs of children: spread 32%",
  },
  "ratio-search-large": {
    by: "factor",
    margin: 1.2,
    why: "the same past 2,000 tools: spread 113% (bm25f ÷ minisearch at 10k ran 0.61 on a quiet machine, 0.97–1.30 on a busy one)",
  },
  "ratio-gateway-cpu": {
    by: "factor",
    margin: 0.9,
    why: "this process's CPU per turn, search mode ÷ direct, median of the rounds: spread 24% over 6 quiet runs, 54% with the 2-core box busy (load 6); a 2× regression fails",
  },
  "ratio-gateway": {
    by: "factor",
    margin: 1.5,
    why: "turns/s, search mode ÷ direct, median of the rounds: wall time, spread 69% with the machine's load; only a gross slowdown fails",
  },
  "ratio-stall-request": {
    by: "factor",
    margin: 2.5,
    why: "one hostile request's p50 ÷ an ordinary run's p50 (medians of hundreds, measured seconds apart): spread up to 189% with the load; a lost guard is 100× or more",
  },
  "ratio-stall": {
    by: "factor",
    margin: 20,
    why: "event-loop p99 under a hostile input ÷ the idle window's, one 1-s window each: spread up to 11.5× with the load, so only a lost guard (seconds of stall) fails",
  },
};
