/**
 * Search hits as terminal text (`toolsearch search`): a numbered list, and with `--explain` the
 * steps that placed each hit (`run.explain`'s detail), each ranked list with its BM25F figures
 * as a small table — per request word, the term that scored, how it came from the word, its
 * score and that score's split over the fields — ending in `sum × coordination × name precision`.
 */
import type { DetailedHit, ExplainedHit, ListStep, RankStep } from "../dispatch/types.js";
import type { FieldName } from "../search/types.js";
import { escapeControl } from "../text/prompt-text.js";

const FIELDS: readonly FieldName[] = ["name", "toolset", "description", "params"];
const figure = (n: number) => n.toFixed(3);
const clipped = (text: string) => (text.length <= 60 ? text : `${text.slice(0, 59)}…`);

export function hitsText(request: string, hits: ReadonlyArray<ExplainedHit | DetailedHit>, whose: string): string[] {
  const lines = [`${hits.length} hit${hits.length === 1 ? "" : "s"} for ${JSON.stringify(escapeControl(request))} (${whose})`];
  if (hits.length === 0) lines.push("  nothing: the request has no word the catalog or the thesaurus knows, or no tool is allowed");
  for (const [i, hit] of hits.entries()) {
    const marks = [hit.learned ? "learned" : "", hit.weak ? "weak: no tool holds the request's words" : ""].filter(Boolean).join(", ");
    lines.push("");
    lines.push(`${String(i + 1).padStart(2)}. ${escapeControl(hit.id)}  score ${figure(hit.score)}${marks ? `  (${marks})` : ""}`);
    lines.push(`    ${escapeControl(hit.summary)}${hit.signature ? `  ${escapeControl(hit.signature)}` : ""}`);
    if ("detail" in hit) for (const line of stepsText(hit.detail.steps)) lines.push(`    ${line}`);
  }
  return lines;
}

function stepsText(steps: readonly RankStep[]): string[] {
  const lines = ["why:"];
  for (const step of steps) {
    if (step.step === "whole" || step.step === "clause") lines.push(...listText(step));
    else lines.push(`  ${escapeControl(step.label)}`);
  }
  return lines;
}

function listText(step: ListStep): string[] {
  const list = step.step === "whole" ? "whole request" : `clause ${step.clause ?? "?"} ${JSON.stringify(clipped(step.text))}`;
  const where = step.index === "client" ? ", in the run's client tools" : "";
  const lines = [`  ${escapeControl(list)}: rank ${step.rank}, relative score ${figure(step.score)}${where}`];
  const bm25f = step.bm25f;
  if (!bm25f) return lines;
  const rows = [
    ["word", "term", "via", "score", ...FIELDS],
    ...bm25f.words.map((w) => [w.word, w.term, w.via, figure(w.score), ...FIELDS.map((f) => figure(w.fields[f]))]),
  ].map((row) => row.map((cell) => escapeControl(cell)));
  const widths = rows[0]!.map((_, c) => Math.min(24, Math.max(...rows.map((row) => row[c]!.length))));
  // Text columns to the left, figures to the right: the fields' split reads as a column of numbers.
  for (const row of rows) lines.push(`    ${row.map((cell, c) => (c < 3 ? cell.slice(0, 24).padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ")}`);
  lines.push(
    `    sum ${figure(bm25f.sum)} × coordination ${figure(bm25f.coordination)} × name precision ${figure(bm25f.namePrecision)} = ${figure(bm25f.score)}`,
  );
  return lines;
}
