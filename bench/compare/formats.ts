/**
 * `--format`: the figures in the formats CI tools read, written beside the results JSON.
 *
 * - `<name>.smaller-is-better.json` and `<name>.bigger-is-better.json`: the custom JSON of
 *   benchmark-action/github-action-benchmark (`tool: customSmallerIsBetter` /
 *   `customBiggerIsBetter`): an array of `{ name, unit, value, range?, extra? }`, one file per
 *   direction because the action takes one tool per file.
 * - `<name>.pr-comment.md`: a Markdown table for a pull-request comment: regressions first,
 *   every figure with baseline → now and its verdict when a baseline was given.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { BenchResults } from "../harness/results.js";
import { formatChange, formatNumber, formatThreshold, formatValue, type Comparison, type Row } from "./compare.js";
import type { Figure } from "./figures.js";
import { THRESHOLDS } from "./thresholds.js";

/** One entry of github-action-benchmark's custom JSON. */
export interface ActionBenchmarkEntry {
  name: string;
  unit: string;
  value: number;
  /** Free text the action shows beside the value; here the spread of this run's repeats. */
  range?: string;
  /** Free text shown in the tooltip. */
  extra?: string;
}

/** The two arrays github-action-benchmark reads, split by direction. */
export function actionBenchmark(figures: readonly Figure[]): { smallerIsBetter: ActionBenchmarkEntry[]; biggerIsBetter: ActionBenchmarkEntry[] } {
  const entry = (f: Figure): ActionBenchmarkEntry => {
    const t = THRESHOLDS[f.kind];
    return {
      name: f.name,
      unit: f.unit,
      value: f.value,
      ...(f.range ? { range: `± ${round((f.range[1] - f.range[0]) / 2)}` } : {}),
      extra: [
        `kind: ${f.kind}`,
        `fails when ${formatThreshold(t, f.better)}`,
        ...(f.range ? [`repeats ${round(f.range[0])}…${round(f.range[1])}${f.repeats ? ` (${f.repeats})` : ""}`] : []),
      ].join("; "),
    };
  };
  return { smallerIsBetter: figures.filter((f) => f.better === "smaller").map(entry), biggerIsBetter: figures.filter((f) => f.better === "bigger").map(entry) };
}

function round(x: number): number {
  return Number(x.toPrecision(4));
}

const VERDICT_MD: Record<Row["verdict"], string> = {
  same: "same",
  better: "better",
  worse: "worse (within margin)",
  regressed: "**regressed**",
  improved: "improved",
  new: "new",
  missing: "missing",
};

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/**
 * The pull-request comment: a headline, then the figures. With a comparison, rows that moved
 * (regressed, improved, worse, better, new, missing) come first and unchanged ones are folded
 * into a <details> block so the comment stays short.
 */
export function markdownTable(results: BenchResults, figures: readonly Figure[], comparison?: Comparison, baselineLabel?: string): string {
  const m = results.machine;
  const head = `**toolsearch bench${results.quick ? " (quick)" : ""}** on ${m?.cpuModel ?? "?"} (${m?.cores ?? "?"} cores), Node ${m?.node ?? "?"}${results.toolsearch?.commit ? `, ${results.toolsearch.commit.slice(0, 10)}` : ""}`;
  if (!comparison) {
    return [
      head,
      "",
      "| figure | value | unit | kind |",
      "|:---|---:|:---|:---|",
      ...figures.map(
        (f) =>
          `| ${cell(f.name)} | ${formatNumber(f.value, f.unit)}${f.range ? ` (${formatNumber(f.range[0], f.unit)}…${formatNumber(f.range[1], f.unit)})` : ""} | ${cell(f.unit)} | ${f.kind} |`,
      ),
      "",
    ].join("\n");
  }
  const order: Row["verdict"][] = ["regressed", "improved", "worse", "better", "new", "missing", "same"];
  const rows = [...comparison.rows].sort((a, b) => order.indexOf(a.verdict) - order.indexOf(b.verdict));
  const line = (r: Row): string =>
    `| ${VERDICT_MD[r.verdict]} | ${cell(r.name)} | ${cell(formatValue(r.baseline, r.unit))} | ${cell(formatValue(r.now, r.unit))} | ${cell(formatChange(r) || "–")} | ${cell(formatThreshold(r.threshold, r.better))} |`;
  const header = ["| verdict | figure | baseline | now | change | fails when |", "|:---|:---|---:|---:|---:|:---|"];
  const moved = rows.filter((r) => r.verdict !== "same");
  const same = rows.filter((r) => r.verdict === "same");
  const summary =
    comparison.regressed.length > 0
      ? `❌ ${comparison.regressed.length} figure${comparison.regressed.length === 1 ? "" : "s"} regressed past ${comparison.regressed.length === 1 ? "its" : "their"} threshold: ${comparison.regressed.map((r) => `\`${r.name}\``).join(", ")}`
      : `✅ no figure regressed past its threshold (${comparison.rows.filter((r) => r.baseline !== undefined && r.now !== undefined).length} compared)`;
  return [
    head,
    "",
    `${summary}; baseline: ${baselineLabel ?? "the given file"}.`,
    ...comparison.notes.map((n) => `> ${n}`),
    "",
    ...(moved.length > 0 ? [...header, ...moved.map(line)] : ["No figure moved."]),
    "",
    ...(same.length > 0 ? [`<details><summary>${same.length} unchanged figures</summary>`, "", ...header, ...same.map(line), "", "</details>", ""] : []),
  ].join("\n");
}

export interface FormatFiles {
  smallerIsBetter: string;
  biggerIsBetter: string;
  markdown: string;
}

/** Writes the three files beside `<out>/<name>.json` (name: the results' own unless given); returns their paths. */
export function writeFormats(
  results: BenchResults,
  figures: readonly Figure[],
  out: string,
  comparison?: Comparison,
  baselineLabel?: string,
  name: string = results.name,
): FormatFiles {
  const files: FormatFiles = {
    smallerIsBetter: path.join(out, `${name}.smaller-is-better.json`),
    biggerIsBetter: path.join(out, `${name}.bigger-is-better.json`),
    markdown: path.join(out, `${name}.pr-comment.md`),
  };
  const action = actionBenchmark(figures);
  writeFileSync(files.smallerIsBetter, `${JSON.stringify(action.smallerIsBetter, null, 2)}\n`);
  writeFileSync(files.biggerIsBetter, `${JSON.stringify(action.biggerIsBetter, null, 2)}\n`);
  writeFileSync(files.markdown, markdownTable(results, figures, comparison, baselineLabel));
  return files;
}
