/**
 * The figures section of docs/benchmarks.md (once the README's), regenerated from a results file: everything between
 * `<!-- bench:start -->` and `<!-- bench:end -->` is replaced, nothing else is touched.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { SUITE_NAMES, type BenchResults } from "../harness/results.js";
import { headline, summaryTable } from "./summary.js";

export const README_START = "<!-- bench:start -->";
export const README_END = "<!-- bench:end -->";

/** Charts shown in the section, in order, when the results have them. */
const README_CHARTS: ReadonlyArray<[file: string, alt: string]> = [
  ["payload-turn.svg", "Bytes sent to the model over one turn, by catalog size and mode"],
  ["code-mode-latency.svg", "Code-mode latency: warm pool vs spawning"],
  ["code-mode-throughput.svg", "Code-mode bodies per second by pool size"],
  ["search-latency.svg", "Search query latency by catalog size"],
  ["relevance-test_in_domain.svg", "Relevance per backend on Seal-Tools test_in_domain"],
  ["gateway-throughput.svg", "Gateway turns per second by mode and concurrency"],
];

export interface ReadmeSectionOptions {
  /** Where the charts are, relative to the doc (e.g. ../bench/results/charts). */
  chartsDir: string;
  /** Chart files that exist (only those are linked). */
  charts: readonly string[];
  /** The full tables, relative to the doc (e.g. ../bench/results/SUMMARY.md). */
  summaryPath: string;
}

export function readmeSection(results: BenchResults, options: ReadmeSectionOptions): string {
  const m = results.machine;
  const lines = [
    `Measured by \`npm run bench\` on ${results.date.slice(0, 10)} (${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node}); ` +
      `every figure beside the baseline it replaces, measured in the same run. Full tables: [${options.summaryPath}](${options.summaryPath}); ` +
      `\`npm run bench -- --quick\` is the CI variant.`,
    "",
    ...SUITE_NAMES.flatMap((name) => {
      const outcome = results.suites[name];
      if (outcome?.status === "failed") return [`- **${name}: failed in this run** (${outcome.error.split("\n")[0]}); its figures below are kept.`];
      if (outcome?.status === "skipped") return [`- ${name}: skipped in this run (${outcome.reason}).`];
      return [];
    }),
    ...headline(results).map((l) => `- ${l}`),
    "",
    summaryTable(results),
    "",
    ...README_CHARTS.filter(([file]) => options.charts.includes(file)).map(([file, alt]) => `![${alt}](${options.chartsDir}/${file})`),
  ];
  return lines.join("\n");
}

/** `readme` with the text between the markers replaced by `section`. Throws when the markers are missing or out of order. */
export function replaceReadmeSection(readme: string, section: string): string {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start === -1 || end === -1) throw new Error(`README has no ${README_START} … ${README_END} markers`);
  if (end < start || readme.indexOf(README_START, start + 1) !== -1 || readme.indexOf(README_END, end + 1) !== -1) {
    throw new Error(`README must hold exactly one ${README_START} followed by one ${README_END}`);
  }
  return `${readme.slice(0, start + README_START.length)}\n${section.trim()}\n${readme.slice(end)}`;
}

/** Rewrites the README's section in place; returns whether the file changed. */
export function updateReadmeFile(readmePath: string, results: BenchResults, options: ReadmeSectionOptions): boolean {
  const before = readFileSync(readmePath, "utf8");
  const after = replaceReadmeSection(before, readmeSection(results, options));
  if (after === before) return false;
  writeFileSync(readmePath, after);
  return true;
}
