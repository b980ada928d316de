/** Writes a run's files: <out>/<name>.json, <out>/SUMMARY.md, <out>/charts/*.svg, and optionally the figures section of docs/benchmarks.md. */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chartsFor } from "../charts/charts.js";
import type { Progress } from "../harness/progress.js";
import type { BenchResults } from "../harness/results.js";
import { updateReadmeFile, README_START } from "./readme.js";
import { summaryMarkdown } from "./summary.js";

/** Where the measured figures live (the README links to it). */
const BENCHMARKS_DOC = "docs/benchmarks.md";

export interface Written {
  json: string;
  summaryFile: string;
  charts: string[];
  summary: string;
  readmeUpdated: boolean;
}

export function writeReport(results: BenchResults, options: { root: string; out: string; updateReadme: boolean; log: Progress; writeJson?: boolean }): Written {
  const { root, out, log } = options;
  mkdirSync(out, { recursive: true });
  const json = path.join(out, `${results.name}.json`);
  if (options.writeJson !== false) writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`);

  const chartsDir = path.join(out, "charts");
  mkdirSync(chartsDir, { recursive: true });
  const charts = chartsFor(results);
  // Charts of suites that did not run this time would describe another run: drop them.
  for (const file of readdirSync(chartsDir)) if (file.endsWith(".svg") && !charts.some((c) => c.file === file)) rmSync(path.join(chartsDir, file));
  for (const chart of charts) writeFileSync(path.join(chartsDir, chart.file), chart.svg);

  const summary = summaryMarkdown(results, { chartsDir: "charts" });
  const summaryFile = path.join(out, "SUMMARY.md");
  writeFileSync(summaryFile, summary);
  log(`wrote ${options.writeJson !== false ? `${rel(root, json)}, ` : ""}${rel(root, summaryFile)} and ${charts.length} charts in ${rel(root, chartsDir)}/`);

  let readmeUpdated = false;
  if (options.updateReadme) {
    const doc = path.join(root, BENCHMARKS_DOC);
    if (!existsSync(doc)) log(`${BENCHMARKS_DOC} not found; section not written`);
    else {
      // The section's links are relative to the doc it sits in.
      const docDir = path.dirname(doc);
      try {
        readmeUpdated = updateReadmeFile(doc, results, {
          chartsDir: rel(docDir, chartsDir),
          charts: charts.map((c) => c.file),
          summaryPath: rel(docDir, summaryFile),
        });
        log(readmeUpdated ? `${BENCHMARKS_DOC} section rewritten` : `${BENCHMARKS_DOC} section already up to date`);
      } catch (error) {
        log(`${BENCHMARKS_DOC} not updated: ${(error as Error).message} (add ${README_START} … markers)`);
      }
    }
  }
  return { json, summaryFile, charts: charts.map((c) => path.join(chartsDir, c.file)), summary, readmeUpdated };
}

function rel(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join("/");
}
