/**
 * A code body's cost to the parent through the public API (issue 34, row 2): this process's CPU
 * per body answered by `run.handleToolCall` (`tool_search_code`) at concurrency 2, for the
 * search → describe → call body and for `return 1`, beside the same three operations called
 * directly on the run (`run.search`, `run.describe`, `run.call`) and the same bodies on the pool
 * alone (`pool.run` against the in-memory bridge of fixture.ts): a real engine over core tools,
 * the pool shared by both (createCodePool). Rows alternate within each round, so that load from
 * elsewhere falls on every row alike; each figure is the median over the rounds, and each ratio
 * the median of the per-round ratios.
 *
 *   npm run build && node dist/bench/code-mode/public-api.js [--n 60] [--rounds 5]
 */
import { coreTools, createCodePool, createToolSearch, type CodePool, type ToolSearchRun } from "../../src/index.js";
import { median, round } from "../harness/stats.js";
import { BODY, bridge } from "./fixture.js";
import { concurrently } from "./measure.js";

export interface PublicApiCost {
  /** Bodies (or direct triples) per row per round, and rounds. */
  n: number;
  rounds: number;
  /** This process's CPU per item (ms), median of the rounds. */
  cpuMs: { handleBody: number; handleReturn1: number; direct: number; poolBody: number; poolReturn1: number };
  /** Per round: the handleToolCall body's CPU ÷ the three direct operations' (median, range). */
  bodyVsDirect: { value: number; range: [number, number] };
  /** Per round: the `return 1` body's CPU through handleToolCall ÷ the three direct operations'. */
  return1VsDirect: { value: number; range: [number, number] };
  /** Per round: the handleToolCall body ÷ the same body on the pool alone (what the engine adds to the pool). */
  bodyVsPool: { value: number; range: [number, number] };
}

const TOOLS = [
  {
    name: "weather",
    description: "Current weather for a city",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: async (args: Record<string, unknown>) => ({ tempC: 21, args }),
  },
  { name: "news", description: "Headlines", inputSchema: { type: "object" }, execute: async () => ({ headlines: [] }) },
];

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function viaHandle(run: ToolSearchRun, code: string): () => Promise<void> {
  const args = JSON.stringify({ code });
  return async () => {
    const text = await run.handleToolCall({ name: "tool_search_code", arguments: args });
    if (!text.startsWith('{"ok":true')) throw new Error(`bench/code-mode: the body failed: ${text.slice(0, 300)}`);
  };
}

function viaPool(pool: CodePool, code: string): () => Promise<void> {
  return async () => {
    const result = await pool.run(code, bridge, { timeoutMs: 10_000 });
    if (!result.ok) throw new Error(`bench/code-mode: ${result.error.code}: ${result.error.message}`);
  };
}

function direct(run: ToolSearchRun): () => Promise<void> {
  return async () => {
    const hits = await run.search("weather");
    const tool = await run.describe(hits[0]!.id);
    const outcome = await run.call(tool.id, { city: "Paris" });
    if (!outcome.ok) throw new Error(`bench/code-mode: the direct call failed: ${outcome.error.message}`);
  };
}

const spread = (xs: number[]): { value: number; range: [number, number] } => ({
  value: round(median(xs), 3),
  range: [round(Math.min(...xs), 3), round(Math.max(...xs), 3)],
});

export async function measurePublicApi(options: { n: number; rounds: number }): Promise<PublicApiCost> {
  const pool = await createCodePool({ prefork: 2, maxConcurrent: 2, maxQueue: 1_000 });
  const engine = await createToolSearch({ toolSearch: { mode: "code" }, codePool: pool, sources: [coreTools(TOOLS)] });
  try {
    const run = await engine.prepareRun({ sessionId: "bench-code-mode" });
    if (run.mode !== "code") throw new Error(`bench/code-mode: the run fell back to ${run.mode} mode`);
    const rows = {
      handleBody: viaHandle(run, BODY),
      handleReturn1: viaHandle(run, "return 1;"),
      direct: direct(run),
      poolBody: viaPool(pool, BODY),
      poolReturn1: viaPool(pool, "return 1;"),
    };
    type Row = keyof typeof rows;
    // Every path once, uncounted (code compiled and optimised, caches warm).
    for (const task of Object.values(rows)) await concurrently(2, 10, task);
    const samples = Object.fromEntries(Object.keys(rows).map((k) => [k, [] as number[]])) as Record<Row, number[]>;
    for (let r = 0; r < options.rounds; r += 1) {
      const order = (Object.keys(rows) as Row[]).slice();
      if (r % 2 === 1) order.reverse();
      for (const row of order) {
        const c0 = cpuMs();
        await concurrently(2, options.n, rows[row]);
        samples[row].push((cpuMs() - c0) / options.n);
      }
    }
    await run.end();
    const per = (a: Row, b: Row) => samples[a].map((x, i) => x / samples[b][i]!);
    return {
      n: options.n,
      rounds: options.rounds,
      cpuMs: Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, round(median(xs), 3)])) as PublicApiCost["cpuMs"],
      bodyVsDirect: spread(per("handleBody", "direct")),
      return1VsDirect: spread(per("handleReturn1", "direct")),
      bodyVsPool: spread(per("handleBody", "poolBody")),
    };
  } finally {
    await engine.close();
    await pool.close();
  }
}

export function publicApiTable(r: PublicApiCost): string {
  const f = (x: number) => x.toFixed(3);
  return [
    `parent CPU per item through the public API (ms; concurrency 2, median of ${r.rounds} rounds of ${r.n}):`,
    `  run.handleToolCall, search → describe → call body   ${f(r.cpuMs.handleBody)}   (${r.bodyVsDirect.value.toFixed(1)}× the direct operations, ${r.bodyVsDirect.range[0].toFixed(1)}…${r.bodyVsDirect.range[1].toFixed(1)}; ${r.bodyVsPool.value.toFixed(2)}× the pool alone)`,
    `  run.handleToolCall, return 1 body                    ${f(r.cpuMs.handleReturn1)}   (${r.return1VsDirect.value.toFixed(1)}× the direct operations, ${r.return1VsDirect.range[0].toFixed(1)}…${r.return1VsDirect.range[1].toFixed(1)})`,
    `  run.search + run.describe + run.call, direct        ${f(r.cpuMs.direct)}`,
    `  pool.run alone (in-memory bridge): body ${f(r.cpuMs.poolBody)}, return 1 ${f(r.cpuMs.poolReturn1)}`,
  ].join("\n");
}

if (process.argv[1]?.endsWith("public-api.js")) {
  const { positiveIntArg } = await import("../harness/args.js");
  console.log(publicApiTable(await measurePublicApi({ n: positiveIntArg("--n", 60), rounds: positiveIntArg("--rounds", 5) })));
}
