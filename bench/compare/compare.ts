/**
 * `--compare FILE`: every figure of this run beside the same figure of an earlier results file,
 * judged by THRESHOLDS. A figure is matched by name only, so figures a suite adds later show as
 * "new" (reported, never failing) and figures this run lacks show as "missing" (reported, never
 * failing: a suite skipped for want of data must not fail CI; a suite that broke fails the run
 * on its own).
 */
import type { BenchResults } from "../harness/results.js";
import { figuresOf, type Figure, type FigureKind } from "./figures.js";
import { THRESHOLDS, type Threshold } from "./thresholds.js";

export type Verdict = "same" | "better" | "worse" | "regressed" | "improved" | "new" | "missing";

export interface Row {
  name: string;
  kind: FigureKind;
  unit: string;
  better: "smaller" | "bigger";
  baseline?: number;
  now?: number;
  /** now − baseline, and (now − baseline) ÷ |baseline| (undefined when the baseline is 0). */
  delta?: number;
  relative?: number;
  /**
   * same: no change; better / worse: moved, within the margin; improved: better past the margin;
   * regressed: worse past the margin (fails the run); new: no baseline; missing: not in this run.
   */
  verdict: Verdict;
  threshold: Threshold;
  /** This run's repeats, when the figure is a median. */
  range?: [number, number];
}

export interface Comparison {
  rows: Row[];
  regressed: Row[];
  /** Notes on the two files (quick vs full, another machine). */
  notes: string[];
}

/** How much worse `now` is than `baseline` in the threshold's own terms (≤ 0: not worse). */
function worseBy(threshold: Threshold, better: "smaller" | "bigger", baseline: number, now: number): number {
  const sign = better === "smaller" ? 1 : -1;
  if (threshold.by === "absolute") return sign * (now - baseline);
  if (threshold.by === "relative")
    return baseline === 0 ? (sign * (now - baseline) > 0 ? Number.POSITIVE_INFINITY : 0) : (sign * (now - baseline)) / Math.abs(baseline);
  // factor: both sides of a ratio are positive; a ratio that reached 0 is infinitely better or worse.
  if (baseline <= 0 || now <= 0) return now === baseline ? 0 : sign * (now - baseline) > 0 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  return better === "smaller" ? now / baseline - 1 : baseline / now - 1;
}

/** The verdict on one figure. Exposed for tests. */
export function judge(threshold: Threshold, better: "smaller" | "bigger", baseline: number, now: number): Exclude<Verdict, "new" | "missing"> {
  if (now === baseline) return "same";
  const worse = worseBy(threshold, better, baseline, now);
  // Rounding in the results file: a change of a few parts in 10^9 is no change.
  const epsilon = 1e-9;
  if (worse > threshold.margin + epsilon) return "regressed";
  if (worse > 0) return "worse";
  const betterBy = worseBy(threshold, better === "smaller" ? "bigger" : "smaller", baseline, now);
  return betterBy > threshold.margin + epsilon ? "improved" : "better";
}

export function compareFigures(
  baseline: readonly Figure[],
  now: readonly Figure[],
  thresholds: Readonly<Record<FigureKind, Threshold>> = THRESHOLDS,
): Comparison {
  const before = new Map(baseline.map((f) => [f.name, f]));
  const seen = new Set<string>();
  const rows: Row[] = [];
  for (const f of now) {
    seen.add(f.name);
    const b = before.get(f.name);
    const threshold = thresholds[f.kind];
    const base = { name: f.name, kind: f.kind, unit: f.unit, better: f.better, now: f.value, threshold, ...(f.range ? { range: f.range } : {}) };
    if (!b) {
      rows.push({ ...base, verdict: "new" });
      continue;
    }
    const delta = f.value - b.value;
    rows.push({
      ...base,
      baseline: b.value,
      delta,
      ...(b.value !== 0 ? { relative: delta / Math.abs(b.value) } : {}),
      verdict: judge(threshold, f.better, b.value, f.value),
    });
  }
  for (const b of baseline) {
    if (seen.has(b.name)) continue;
    rows.push({ name: b.name, kind: b.kind, unit: b.unit, better: b.better, baseline: b.value, threshold: thresholds[b.kind], verdict: "missing" });
  }
  return { rows, regressed: rows.filter((r) => r.verdict === "regressed"), notes: [] };
}

/** Compares two results files: the figures, plus notes when they were not measured alike. */
export function compareResults(baseline: BenchResults, now: BenchResults): Comparison {
  const comparison = compareFigures(figuresOf(baseline), figuresOf(now));
  if (baseline.quick !== now.quick) {
    comparison.notes.push(
      `the baseline is a ${baseline.quick ? "quick" : "full"} run and this one is ${now.quick ? "quick" : "full"}: figures of sizes only one of them measured show as new or missing, and same-named timing ratios were measured with different repeat counts`,
    );
  }
  const a = baseline.machine;
  const b = now.machine;
  if (a && b && (a.cpuModel !== b.cpuModel || a.cores !== b.cores)) {
    comparison.notes.push(
      `the baseline was measured on ${a.cpuModel} (${a.cores} cores), this run on ${b.cpuModel} (${b.cores} cores): timing ratios may differ by machine`,
    );
  }
  return comparison;
}

const VERDICT_LABEL: Record<Verdict, string> = {
  same: "same",
  better: "better",
  worse: "worse",
  regressed: "REGRESSED",
  improved: "improved",
  new: "new",
  missing: "missing",
};

/** A figure's value for people: integers with separators, ratios and scores with 3–4 significant digits. */
export function formatValue(value: number | undefined, unit: string): string {
  if (value === undefined || !Number.isFinite(value)) return "–";
  const n = formatNumber(value, unit);
  return unit === "ratio" ? `${n}×` : unit === "score" || unit === "" ? n : `${n} ${unit}`;
}

/** The number alone, as formatValue writes it for `unit`: ratios and scores always with decimals. */
export function formatNumber(value: number, unit: string): string {
  const fractional = unit === "ratio" || unit === "score" || !Number.isInteger(value);
  return !fractional
    ? value.toLocaleString("en-US")
    : Math.abs(value) >= 100
      ? value.toFixed(0)
      : Math.abs(value) >= 1 || value === 0
        ? value.toFixed(3)
        : value.toPrecision(3);
}

/** The change as people read it: +12.0% (and +34 B for additive kinds). */
export function formatChange(row: Row): string {
  if (row.baseline === undefined || row.now === undefined) return "";
  if (row.delta === 0) return "±0";
  if (row.threshold.by === "factor") {
    const factor = row.now / row.baseline;
    return Number.isFinite(factor) ? `×${factor.toFixed(2)}` : "–";
  }
  const pct = row.relative === undefined ? "" : ` (${row.relative >= 0 ? "+" : ""}${(row.relative * 100).toFixed(1)}%)`;
  const d = row.delta!;
  const abs = Number.isInteger(d) ? d.toLocaleString("en-US") : Math.abs(d) >= 1 ? d.toFixed(2) : d.toPrecision(2);
  return `${d >= 0 ? "+" : ""}${abs}${pct}`;
}

/**
 * When the threshold fails a figure, as people read it: "worse by > 1%", "any worse value",
 * and for ratios the change (now ÷ baseline) that fails: "× > 1.50" when smaller is better,
 * "× < 0.67" when bigger is better.
 */
export function formatThreshold(t: Threshold, better?: "smaller" | "bigger"): string {
  if (t.by === "absolute") return t.margin === 0 ? "any worse value" : `worse by > ${t.margin}`;
  if (t.by === "relative") return `worse by > ${(t.margin * 100).toFixed(t.margin < 0.01 ? 1 : 0)}%`;
  if (better === "bigger") return `× < ${(1 / (1 + t.margin)).toFixed(2)}`;
  if (better === "smaller") return `× > ${(1 + t.margin).toFixed(2)}`;
  return `worse by a factor > ${(1 + t.margin).toFixed(2)}`;
}

/** The text `--compare` prints: one line per figure (baseline → now, change, verdict), then the failures by name. */
export function comparisonText(comparison: Comparison, labels: { baseline: string; now: string }): string {
  const rows = comparison.rows;
  const nameWidth = Math.min(72, Math.max(...rows.map((r) => r.name.length), 6));
  const lines: string[] = [`Compared with ${labels.baseline} (${rows.filter((r) => r.baseline !== undefined).length} figures with a baseline): ${labels.now}`];
  for (const note of comparison.notes) lines.push(`note: ${note}`);
  lines.push("");
  for (const r of rows) {
    const range = r.range ? ` [${formatNumber(r.range[0], r.unit)}…${formatNumber(r.range[1], r.unit)}]` : "";
    lines.push(
      `${VERDICT_LABEL[r.verdict].padEnd(9)} ${r.name.padEnd(nameWidth)}  ${formatValue(r.baseline, r.unit)} → ${formatValue(r.now, r.unit)}${range}` +
        `${formatChange(r) ? `  ${formatChange(r)}` : ""}${r.verdict === "regressed" || r.verdict === "worse" ? `  (fails when ${formatThreshold(r.threshold, r.better)})` : ""}`,
    );
  }
  const count = (v: Verdict): number => rows.filter((r) => r.verdict === v).length;
  lines.push("");
  lines.push(
    `${rows.length} figures: ${count("regressed")} regressed, ${count("worse")} worse within the margin, ${count("same")} same, ${count("better")} better within the margin, ` +
      `${count("improved")} improved, ${count("new")} new (no baseline, pass), ${count("missing")} missing from this run`,
  );
  if (count("improved") > 0) lines.push("Improved figures: refresh the baseline to hold them (see bench/README.md).");
  for (const r of comparison.regressed) {
    lines.push(
      `FAIL ${r.name} regressed: ${formatValue(r.baseline, r.unit)} → ${formatValue(r.now, r.unit)} (${formatChange(r)}; ${r.kind} figures fail when ${formatThreshold(r.threshold, r.better)})`,
    );
  }
  return lines.join("\n");
}
