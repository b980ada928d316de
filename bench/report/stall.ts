/** The stall suite's tables (SUMMARY.md, the standalone bench/stall output) and its rows in the README's table. */
import type { StallKindResult, StallResult } from "../stall/stall-bench.js";
import type { WindowFigures } from "../stall/probes.js";

const int = (n: number): string => Math.round(n).toLocaleString("en-US");
const msf = (v: number | null | undefined): string =>
  v === undefined || v === null || !Number.isFinite(v) ? "–" : v >= 100 ? Math.round(v).toLocaleString("en-US") : v >= 10 ? v.toFixed(1) : v.toFixed(2);

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [`| ${header.join(" | ")} |`, `|${header.map((_, i) => (i === 0 ? ":---" : "---:")).join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join(
    "\n",
  );
}

/** "met" or how many times over the goal. */
function verdict(value: number | null | undefined, goal: number): string {
  if (value === undefined || value === null || !Number.isFinite(value)) return "–";
  return value <= goal ? "met" : `missed (${(value / goal).toFixed(value / goal >= 10 ? 0 : 1)}×)`;
}

function sizeCell(k: StallKindResult): string {
  if (!k.capped) return `${int(k.size)} ${k.unit}`;
  return `${int(k.size)} of ${int(k.target)} ${k.unit} (capped; ~${msf(k.projectedTargetMs)} ms a request projected at ${int(k.target)})`;
}

function outcomesCell(outcomes: Record<string, number>): string {
  return Object.entries(outcomes)
    .map(([code, n]) => `${code} ×${n}`)
    .join(", ");
}

function windowCells(w: WindowFigures): string[] {
  const failed = w.healthzErrors > 0 ? ` (${w.healthzErrors} failed)` : "";
  return [msf(w.loopMaxMs), msf(w.loopP99Ms), `${msf(w.healthzMaxMs)}${failed}`, msf(w.healthzP99Ms)];
}

/** The suite's section: `level` is the heading level of its title. */
export function stallMarkdown(r: StallResult, level: string): string[] {
  const goal = r.goals.maxStallMs;
  const out: string[] = ["", `${level} Event-loop stalls`, ""];
  out.push(
    `A gateway in this process over a ${int(r.catalogTools)}-tool generated catalog; each hostile input runs back to back for ${int(r.settings.windowMs)} ms ` +
      `through the engine the gateway holds, while \`monitorEventLoopDelay\` (1 ms resolution) watches the loop and a worker thread polls GET /healthz over loopback. ` +
      `Each kind climbs from small sizes to its target and stops where one request took or was predicted to take over ${int(r.settings.stepDeadlineMs)} ms ` +
      `("capped": the time at the target extrapolates the ladder's growth, taken as at most quadratic in the size, or doubling per character for the regex). A "failed" poll is one the gateway dropped (its keep-alive timer fired late, after a block). Goal: max stall ≤ ${goal} ms.` +
      (r.sandbox.available ? "" : ` Code mode: not measured (${r.sandbox.reason ?? "sandbox unavailable"}).`),
    "",
  );
  out.push(
    table(
      ["input", "size", "requests", "outcomes", "loop max ms", "loop p99 ms", "healthz max ms", "healthz p99 ms", "request p50 / max ms", `max ≤ ${goal} ms`],
      [
        ["idle (baseline)", "–", "–", "–", ...windowCells(r.idle), "–", verdict(r.idle.loopMaxMs, goal)],
        ...r.kinds.map((k) => [
          `${k.kind}: ${k.what}`,
          sizeCell(k),
          int(k.iterations),
          outcomesCell(k.outcomes),
          ...windowCells(k.window),
          `${msf(k.iterationMs.p50)} / ${msf(k.iterationMs.max)}`,
          verdict(k.window.loopMaxMs, goal),
        ]),
      ],
    ),
  );
  if (r.memory) out.push(...memoryLines(r));
  if (r.flood) out.push(...floodLines(r));
  if (r.tenantFlood) out.push(...tenantFloodLines(r));
  if (r.amplify) out.push(...amplifyLines(r));
  return out;
}

const mib = (bytes: number): string => `${msf(bytes / (1024 * 1024))} MiB`;

function amplifyLines(r: StallResult): string[] {
  const a = r.amplify!;
  const { maxStallMs, amplifyRssPerTurnMB } = r.goals;
  const b = a.budgets;
  return [
    "",
    `Amplifying provider: a gateway (direct mode) whose provider answers every trip with ${a.calls} calls of a ${mib(a.resultBytes)}-result tool and never answers; ` +
      `${int(a.turns)} turns one after the other over POST /v1/runs at the default budgets (maxTurns ${b.maxTurns}, maxResultBytes ${mib(b.maxResultBytes)} a call, ` +
      `gateway.maxTurnResultBytes ${mib(b.maxTurnResultBytes)} a turn, provider.maxRequestBytes ${mib(b.maxRequestBytes)}). RSS is sampled every 5 ms; a turn's growth is its peak over the RSS just before it ` +
      `(MB = 10⁶ bytes). The loop and /healthz figures are what every other session of the process sees. Goals: growth ≤ ${amplifyRssPerTurnMB} MB a turn, loop max ≤ ${maxStallMs} ms.`,
    "",
    table(
      [
        "turns",
        "outcomes",
        "provider requests",
        "largest request",
        "turn p50 / max ms",
        "RSS growth a turn, max MB",
        "per turn MB",
        "retained after GC MB",
        "loop max ms",
        "loop p99 ms",
        "healthz max ms",
        "healthz p99 ms",
        `growth ≤ ${amplifyRssPerTurnMB} MB`,
        `max ≤ ${maxStallMs} ms`,
      ],
      [
        [
          int(a.turns),
          outcomesCell(a.outcomes),
          int(a.requests),
          mib(a.requestMaxBytes),
          `${msf(a.turnMs.p50)} / ${msf(a.turnMs.max)}`,
          msf(a.maxGrowthMB),
          a.turnResults.map((t) => msf(t.growthMB)).join(", "),
          msf(a.retainedMB),
          ...windowCells(a.window),
          verdict(a.maxGrowthMB, amplifyRssPerTurnMB),
          verdict(a.window.loopMaxMs, maxStallMs),
        ],
      ],
    ),
  ];
}

/** The heap goal's verdict; below the goal's run count, on a linear projection (said so). */
function memoryVerdict(r: StallResult): string {
  const m = r.memory!;
  const { heapGrowthMB, heapGrowthRuns } = r.goals;
  if (m.runs >= heapGrowthRuns) return verdict(m.growthMB, heapGrowthMB);
  const projected = (m.perRunKB * heapGrowthRuns) / 1000;
  return `${verdict(projected, heapGrowthMB)} (linear projection to ${int(heapGrowthRuns)} runs: ${msf(projected)} MB)`;
}

function memoryLines(r: StallResult): string[] {
  const m = r.memory!;
  const { heapGrowthMB, heapGrowthRuns } = r.goals;
  const judged = memoryVerdict(r);
  return [
    "",
    `Memory: ${int(m.runs)} runs, each declaring a client tool with a schema of its own and calling it once; heap used after forced full GC (MB = 10⁶ bytes). ` +
      `Goal: growth ≤ ${heapGrowthMB} MB over ${int(heapGrowthRuns)} runs.`,
    "",
    table(
      ["runs", "heap before MB", "heap after MB", "growth MB", "KB a run", "curve (runs: MB)", "run p50 / p99 ms", "outcomes", "goal"],
      [
        [
          int(m.runs),
          msf(m.heapBeforeMB),
          msf(m.heapAfterMB),
          msf(m.growthMB),
          msf(m.perRunKB),
          m.curve.map((c) => `${int(c.runs)}: ${c.heapMB}`).join(", "),
          `${msf(m.runMs.p50)} / ${msf(m.runMs.p99)}`,
          outcomesCell(m.outcomes),
          judged,
        ],
      ],
    ),
  ];
}

function floodLines(r: StallResult): string[] {
  const f = r.flood!;
  if ("skipped" in f) return ["", `MCP tools/list_changed flood: skipped (${f.skipped}).`];
  const goal = r.goals.maxStallMs;
  return [
    "",
    `MCP flood: a gateway connected to an MCP server (official SDK \`McpServer\`, Streamable HTTP, its own process) with ${int(f.tools)} tools; ` +
      `${int(f.windowMs)} ms windows: prepareRun + search back to back with the server quiet; the server sending tools/list_changed every ${f.intervalMs} ms and no runs ` +
      `(CPU of relisting alone); then both. CPU is the gateway process's. "tools listed" is the catalog size the gateway ended with (an MCP source keeps at most its \`maxTools\`, 5,000 by default).`,
    "",
    table(
      [
        "phase",
        "runs",
        "run p50 ms",
        "run p99 ms",
        "loop max ms",
        "loop p99 ms",
        "healthz max ms",
        "healthz p99 ms",
        "CPU ms / wall ms",
        "tools listed",
        `max ≤ ${goal} ms`,
      ],
      (
        [
          ["quiet (baseline)", f.quiet],
          [`list_changed every ${f.intervalMs} ms, no runs`, f.floodIdle],
          [`list_changed every ${f.intervalMs} ms`, f.flood],
        ] as const
      ).map(([name, p]) => [
        name,
        int(p.runs),
        p.runs ? msf(p.runMs.p50) : "–",
        p.runs ? msf(p.runMs.p99) : "–",
        ...windowCells(p.window),
        `${int(p.cpuMs)} / ${int(p.window.wallMs)}`,
        int(p.catalogTools),
        verdict(p.window.loopMaxMs, goal),
      ]),
    ),
  ];
}

/** "met" or how many times over the goal, for a ratio goal (× its idle figure). */
function ratioVerdict(ratio: number, goal: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(1)}× (${verdict(ratio, goal)})` : "–";
}

function tenantFloodLines(r: StallResult): string[] {
  const t = r.tenantFlood!;
  if ("skipped" in t) return ["", `Tenant flood: skipped (${t.skipped}).`];
  const outcomes = (o: Record<string, number>) => outcomesCell(o) || "–";
  return [
    "",
    `Tenant flood: \`mcp --http\` in this process with two tokens, code mode, the pool at ${t.pool.maxConcurrent} slots${t.shares ? "" : " with no tenant shares"} ` +
      `(each tenant: at most ${t.pool.maxRunningPerTenant} running and ${t.pool.maxQueuePerTenant} of ${t.pool.maxQueue} waiting). ` +
      `The quiet tenant calls a light \`tool_search_code\` body (a search) ${int(t.victimCalls)} times, ${t.victimGapMs} ms apart, alone and then while the flooding tenant keeps ` +
      `${int(t.floodBodies)} bodies that ${t.hold === "cpu" ? "busy-wait" : "sleep (Atomics.wait, no CPU)"} ${int(t.busyMs)} ms each in flight (an answered one sent again at once, a refused one after ${t.retryMs} ms). ` +
      `Latency is the quiet tenant's round trip over HTTP. Goal: its p99 under the flood ≤ ${t.goal}× its idle p99.`,
    "",
    table(
      [
        "phase",
        "quiet calls",
        "p50 ms",
        "p99 ms",
        "max ms",
        "quiet outcomes",
        "flooder outcomes",
        "loop max ms",
        "loop p99 ms",
        "healthz max ms",
        "healthz p99 ms",
        `p99 ≤ ${t.goal}× idle`,
      ],
      [
        [
          "quiet tenant alone (baseline)",
          int(t.idle.calls),
          msf(t.idle.latencyMs.p50),
          msf(t.idle.latencyMs.p99),
          msf(t.idle.latencyMs.max),
          outcomes(t.idle.outcomes),
          "–",
          ...windowCells(t.idle.window),
          "–",
        ],
        [
          `flooding tenant: ${int(t.floodBodies)} ${t.hold === "cpu" ? "busy" : "sleeping"} bodies in flight`,
          int(t.flood.calls),
          msf(t.flood.latencyMs.p50),
          msf(t.flood.latencyMs.p99),
          msf(t.flood.latencyMs.max),
          outcomes(t.flood.outcomes),
          `${outcomes(t.flooder.outcomes)} (${int(t.flooder.sent)} sent)`,
          ...windowCells(t.flood.window),
          ratioVerdict(t.p99Ratio, t.goal),
        ],
      ],
    ),
  ];
}

/** Rows for the README's one table: the worst stall per input beside the idle baseline, the heap growth beside its goal. */
export function stallSummaryRows(r: StallResult): string[][] {
  const goal = r.goals.maxStallMs;
  const rows = r.kinds.map((k) => [
    `max event-loop stall, ${k.kind} at ${int(k.size)} ${k.unit}${k.capped ? ` (target ${int(k.target)})` : ""}`,
    `${msf(k.window.loopMaxMs)} ms`,
    `${msf(r.idle.loopMaxMs)} ms idle; goal ≤ ${goal} ms`,
    verdict(k.window.loopMaxMs, goal),
  ]);
  if (r.memory)
    rows.push([
      `heap growth over ${int(r.memory.runs)} runs with distinct client schemas`,
      `${msf(r.memory.growthMB)} MB`,
      `goal ≤ ${r.goals.heapGrowthMB} MB over ${int(r.goals.heapGrowthRuns)} runs`,
      memoryVerdict(r),
    ]);
  if (r.amplify) {
    const what = `${r.amplify.calls} calls of a ${mib(r.amplify.resultBytes)} tool every trip`;
    rows.push([
      `RSS growth per turn, provider answering ${what}`,
      `${msf(r.amplify.maxGrowthMB)} MB`,
      `goal ≤ ${r.goals.amplifyRssPerTurnMB} MB`,
      verdict(r.amplify.maxGrowthMB, r.goals.amplifyRssPerTurnMB),
    ]);
    rows.push([
      `bystanders' max event-loop stall, provider answering ${what}`,
      `${msf(r.amplify.window.loopMaxMs)} ms`,
      `${msf(r.idle.loopMaxMs)} ms idle; goal ≤ ${goal} ms`,
      verdict(r.amplify.window.loopMaxMs, goal),
    ]);
  }
  if (r.flood && !("skipped" in r.flood)) {
    rows.push([
      `prepareRun + search p99 under list_changed every ${r.flood.intervalMs} ms`,
      `${msf(r.flood.flood.runMs.p99)} ms`,
      `${msf(r.flood.quiet.runMs.p99)} ms quiet`,
      `${(r.flood.flood.runMs.p99 / r.flood.quiet.runMs.p99).toFixed(1)}×`,
    ]);
  }
  if (r.tenantFlood && !("skipped" in r.tenantFlood)) {
    const t = r.tenantFlood;
    rows.push([
      `quiet tenant's code call p99 while another floods the pool (${int(t.floodBodies)} bodies)`,
      `${msf(t.flood.latencyMs.p99)} ms`,
      `${msf(t.idle.latencyMs.p99)} ms alone; goal ≤ ${t.goal}×`,
      ratioVerdict(t.p99Ratio, t.goal),
    ]);
  }
  return rows;
}

/** One headline line: the worst stall, which input, and the heap growth. */
export function stallHeadline(r: StallResult): string {
  const worst = [...r.kinds].sort((a, b) => b.window.loopMaxMs - a.window.loopMaxMs)[0];
  const parts = [`idle ${msf(r.idle.loopMaxMs)} ms`];
  if (worst)
    parts.push(
      `worst ${msf(worst.window.loopMaxMs)} ms (${worst.kind}${worst.capped ? `, capped at ${int(worst.size)} of ${int(worst.target)} ${worst.unit}` : ""})`,
    );
  const met = r.kinds.filter((k) => k.window.loopMaxMs <= r.goals.maxStallMs).length;
  const memory = r.memory ? `; heap +${msf(r.memory.growthMB)} MB over ${int(r.memory.runs)} runs with distinct client schemas` : "";
  return `Event-loop stalls under hostile input: ${parts.join(", ")}; ${met} of ${r.kinds.length} inputs within ${r.goals.maxStallMs} ms${memory}.`;
}
