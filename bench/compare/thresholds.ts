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
 * twice the widest spread seen, and below 1 so that a 2× regression fails, except for stall
 * ratios, whose single windows move too much on a loaded box for that.
 */
import type { FigureKind } from "./figures.js";

export interface Threshold {
  by: "absolute" | "relative" | "factor";
  margin: number;
  /** Why this margin, in a line (printed by `--compare` and in the docs). */
  why: string;
}

export const THRESHOLDS: Readonly<Record<FigureKind, Threshold>> = {
  bytes: { by: "relative", margin: 0.01, why: "deterministic (identical in every quick run); +1% lets a reworded instruction through, not a schema more per tool" },
  tokens: { by: "relative", margin: 0.01, why: "deterministic (o200k over the request JSON), as bytes" },
  count: { by: "absolute", margin: 0, why: "deterministic integers (round trips, schemas up front, the crossover size): any worse value fails" },
  relevance: { by: "absolute", margin: 0.01, why: "deterministic over a fixed query sample; 0.01 is less than one query of 70 leaving the top k" },
  heap: { by: "absolute", margin: 8, why: "heap growth after forced GC moved by 0.4 MB between quick runs; a schema kept per run adds tens of MB" },
  "ratio-code-mode": { by: "factor", margin: 0.5, why: "pool ÷ bare-spawn floor, median of 6 alternating rounds: moved by up to MEASURED_CODE between quick runs" },
  "ratio-search": { by: "factor", margin: 0.4, why: "backend ÷ baseline backend query p50, median of 3 alternating pairs: moved by up to MEASURED_SEARCH" },
  "ratio-gateway-cpu": { by: "factor", margin: 0.5, why: "this process's CPU per turn, search mode ÷ direct, median of the rounds: moved by up to MEASURED_GWCPU" },
  "ratio-gateway": { by: "factor", margin: 0.8, why: "search mode ÷ direct turns/s, median of 16 (1 session) or 8 (10 sessions) interleaved rounds: moved by up to MEASURED_GATEWAY" },
  "ratio-stall": {
    by: "factor",
    margin: 4,
    why: "hostile input's event-loop p99 ÷ the idle window's, one 1-s window each: moved by up to MEASURED_STALL under load, so only a lost guard (10–1000×) fails",
  },
};
