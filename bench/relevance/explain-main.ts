/**
 * "Why is this tool 3rd?" over a relevance set's catalog, through the real run API
 * (`run.explain(query, { limit, detail: true })`):
 *   node dist/bench/relevance/explain-main.js SET "request" ["request" ...] [--limit N]
 *   node dist/bench/relevance/explain-main.js SET [--misses N] [--limit N]
 * SET is livemcp, seal or metatool. Without a request, the first N held-out requests (default 5)
 * whose right tool is not first: each hit's steps, and per list the words that scored, the
 * field each scored in, coordination and name precision. A right tool is marked `*`.
 */
import { createToolSearch, pluginTools, type DetailedHit, type ListStep } from "../../src/index.js";
import { sharedDataDir } from "../lib/shared-data.js";
import type { JudgedQuery } from "../lib/relevance.js";
import { liveMcpSet, metaToolSet, sealSet, type ReplaySet } from "../learning/sets.js";

const SETS: Record<string, (dir: string) => ReplaySet> = { livemcp: liveMcpSet, seal: sealSet, metatool: metaToolSet };

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

const fixed = (n: number) => n.toFixed(3);

/** One list's words: `word→term score (field share, …)`, then the factors and the score. */
function words(step: ListStep): string {
  const bm25f = step.bm25f;
  if (bm25f === undefined) return "";
  const parts = bm25f.words.map((w) => {
    const fields = Object.entries(w.fields)
      .filter(([, s]) => s > 0)
      .map(([f, s]) => `${f} ${fixed(s)}`);
    return `${w.word === w.term ? w.word : `${w.word}→${w.term}`} ${fixed(w.score)} (${fields.join(", ")})`;
  });
  return `${parts.join(" + ")} = ${fixed(bm25f.sum)} × coord ${fixed(bm25f.coordination)} × name ${fixed(bm25f.namePrecision)} = ${fixed(bm25f.score)}`;
}

function print(query: string, hits: readonly DetailedHit[], relevant: ReadonlySet<string>): void {
  console.log(`\n${JSON.stringify(query)}`);
  hits.forEach((hit, i) => {
    console.log(
      `${String(i + 1).padStart(3)}.${relevant.has(hit.id) ? "*" : " "} ${hit.id}  ${fixed(hit.score)}  [${hit.detail.steps.map((s) => s.label).join(" | ")}]`,
    );
    for (const step of hit.detail.steps) {
      if ((step.step === "whole" || step.step === "clause") && step.bm25f !== undefined)
        console.log(`        ${step.step === "whole" ? "whole" : `clause ${step.clause}`}: ${words(step)}`);
    }
  });
}

const [setName, ...rest] = process.argv.slice(2);
const dataDir = sharedDataDir();
const load = setName === undefined ? undefined : SETS[setName];
if (load === undefined || dataDir === undefined) {
  console.error(
    dataDir === undefined ? "explain: no shared data (../shared/data or $TOOLSEARCH_DATA)" : `explain: SET is one of ${Object.keys(SETS).join(", ")}`,
  );
  process.exit(2);
}
const set = load(dataDir);
const limit = option("--limit", 5);
const requests = rest.filter((a, i) => !a.startsWith("--") && !["--limit", "--misses"].includes(rest[i - 1] ?? ""));
const engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [...set.plugins].map(([id, tools]) => pluginTools(id, tools)) });
const run = await engine.prepareRun({ sessionId: "explain" });
if (requests.length > 0) {
  for (const query of requests) print(query, await run.explain(query, { limit, detail: true }), new Set());
} else {
  let shown = 0;
  const misses = option("--misses", 5);
  for (const q of set.heldOut as JudgedQuery[]) {
    if (shown >= misses) break;
    const hits = await run.explain(q.query, { limit, detail: true });
    if (hits[0] !== undefined && q.relevant.includes(hits[0].id)) continue;
    print(q.query, hits, new Set(q.relevant));
    shown++;
  }
}
await engine.close();
