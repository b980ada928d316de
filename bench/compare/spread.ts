/**
 * Run-to-run spread of every figure over several results files of the same variant: how the
 * margins of THRESHOLDS were sized. Repeat the quick bench, then pass its files:
 *
 *   for i in 1 2 3 4 5; do npm run bench -- --quick --out /tmp/spread/$i; done
 *   node dist/bench/compare/spread.js /tmp/spread/{1,2,3,4,5}/quick.json [--all]
 *
 * Prints, per figure that moved (every figure with --all), min, median, max and the spread as
 * the factor max ÷ min − 1 (the worst pair of runs: what a `factor` threshold must exceed),
 * then the widest spread per kind beside that kind's margin.
 */
import { readFileSync } from "node:fs";
import type { BenchResults } from "../harness/results.js";
import { figuresOf, type FigureKind } from "./figures.js";
import { THRESHOLDS } from "./thresholds.js";

export interface Spread {
  name: string;
  kind: FigureKind;
  n: number;
  min: number;
  median: number;
  max: number;
  /** max ÷ min − 1 (for positive figures), else (max − min) ÷ |median|. */
  spread: number;
}

export function spreads(runs: readonly BenchResults[]): Spread[] {
  const byName = new Map<string, { kind: FigureKind; values: number[] }>();
  for (const run of runs) {
    for (const f of figuresOf(run)) {
      const entry = byName.get(f.name) ?? { kind: f.kind, values: [] };
      entry.values.push(f.value);
      byName.set(f.name, entry);
    }
  }
  return [...byName.entries()].map(([name, { kind, values }]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const min = sorted[0]!;
    const max = sorted.at(-1)!;
    const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
    const spread = min > 0 ? max / min - 1 : median !== 0 ? (max - min) / Math.abs(median) : max - min;
    return { name, kind, n: values.length, min, median, max, spread };
  });
}

const entry = process.argv[1] ?? "";
if (entry.endsWith("spread.js")) {
  const args = process.argv.slice(2);
  const files = args.filter((a) => !a.startsWith("--"));
  if (files.length < 2) {
    process.stderr.write("usage: node dist/bench/compare/spread.js RUN1.json RUN2.json … [--all]\n");
    process.exit(2);
  }
  const all = spreads(files.map((f) => JSON.parse(readFileSync(f, "utf8")) as BenchResults));
  const show = args.includes("--all") ? all : all.filter((s) => s.spread !== 0);
  const w = Math.max(...show.map((s) => s.name.length), 6);
  const f = (x: number): string => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(4));
  console.log(`${"figure".padEnd(w)}  n  ${"min".padStart(9)} ${"median".padStart(9)} ${"max".padStart(9)}  spread`);
  for (const s of show)
    console.log(
      `${s.name.padEnd(w)} ${String(s.n).padStart(2)}  ${f(s.min).padStart(9)} ${f(s.median).padStart(9)} ${f(s.max).padStart(9)}  ${(s.spread * 100).toFixed(1)}%`,
    );
  console.log(`\nwidest spread per kind over ${files.length} runs (beside its threshold):`);
  for (const [kind, t] of Object.entries(THRESHOLDS)) {
    const of = all.filter((s) => s.kind === kind);
    if (of.length === 0) continue;
    const worst = of.reduce((a, b) => (b.spread > a.spread ? b : a));
    console.log(`  ${kind.padEnd(16)} ${(worst.spread * 100).toFixed(1).padStart(6)}% (${worst.name}); threshold ${t.by} ${t.margin}`);
  }
}
