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
 * from the run-to-run spread measured over repeated quick runs on the 2-core CI box (see
 * bench/README.md, "Comparing with a baseline"): each is about twice the widest spread seen,
 * and below 1 so that a 2× regression always fails.
 */
import type { FigureKind } from "./figures.js";

export interface Threshold {
  by: "absolute" | "relative" | "factor";
  margin: number;
  /** Why this margin, in a line (printed by `--compare` and in the docs). */
  why: string;
}

export const THRESHOLDS: Readonly<Record<FigureKind, Threshold>> = {
  bytes: { by: "relative", margin: 0.01, why: "deterministic; +1% absorbs a reworded instruction, not a new schema per tool" },
  tokens: { by: "relative", margin: 0.01, why: "deterministic (o200k over the request JSON), as bytes" },
  count: { by: "absolute", margin: 0, why: "deterministic integers (round trips, schemas up front, crossover size, ladder size reached): any worse value fails" },
  relevance: { by: "absolute", margin: 0.01, why: "deterministic over a fixed query sample; 0.01 is less than one query of 70 moving out of the top k" },
  heap: { by: "absolute", margin: 8, why: "heap after forced GC moves by ~1 MB between runs; a leak of a schema per run adds tens of MB" },
  "ratio-code-mode": { by: "factor", margin: 0.5, why: "pool vs bare-spawn floor, warm pool vs fresh child: median of rounds, spread measured below 25%" },
  "ratio-search": { by: "factor", margin: 0.6, why: "backend vs plain BM25 / minisearch query time, same run: spread measured below 30%" },
  "ratio-gateway": { by: "factor", margin: 0.5, why: "search modes vs direct turns/s, same run, median of interleaved rounds: spread measured below 25%" },
  "ratio-stall": { by: "factor", margin: 0.9, why: "event-loop p99 under a hostile input vs the idle window: spread measured below 45%; a lost guard is 10× or more" },
};
