/**
 * An MCP server floods the shared parent with `tools/list_changed`: what does it cost the
 * parent, and the sessions it serves?
 *
 *   npm run build && node dist/bench/mcp-flood/main.js [--tools 10000] [--every 50] [--seconds 20] [--interval 0,2000]
 *
 * For each `minRelistIntervalMs` in --interval (0 behaves as before the option: a re-list as soon
 * as the previous one ends), an engine in this process lists a child server (server.ts, over
 * stdio) that offers --tools tools and, for --seconds, changes one and sends list_changed every
 * --every ms. Meanwhile a session asks every 20 ms for a run and a search, as a gateway's
 * sessions would; latency counts from when it asked, so waiting behind a stalled event loop
 * counts too (the engine's own time is "service"). Printed per interval: this process's CPU seconds over the flood, the latency of
 * prepareRun + search (p50/p99), the event loop's longest stall, how many tools/list the server
 * answered, and how many times the tool list changed (each one a catalog rebuild and re-index).
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createToolSearch, mcpServer } from "../../src/index.js";
import { percentile } from "../lib/stats.js";

interface FloodResult {
  minRelistIntervalMs: number;
  seconds: number;
  parentCpuSeconds: number;
  serverCpuSeconds: number | undefined;
  runs: number;
  /** prepareRun + search, from when the session asked (arrivals every ARRIVAL_MS), so time spent waiting behind a stalled loop counts. */
  p50Ms: number;
  p99Ms: number;
  /** The same, from when the work started: the engine's own time, without the wait. */
  serviceP50Ms: number;
  maxLoopStallMs: number;
  listsAnswered: number | undefined;
  listChanges: number;
}

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
}

const TOOLS = Number(flag("tools", "10000"));
const EVERY_MS = Number(flag("every", "50"));
const SECONDS = Number(flag("seconds", "20"));
const INTERVALS = flag("interval", "0,2000").split(",").map(Number);
/** A session asks every ARRIVAL_MS, whether or not the previous one is done (no coordinated omission). */
const ARRIVAL_MS = 20;
const QUERIES = ["create invoice", "search customer record", "export report", "approve payment", "list tickets"];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** user + system CPU seconds of a child, from /proc (Linux); undefined elsewhere. */
async function childCpuSeconds(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const { readFileSync } = await import("node:fs");
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

async function flood(minRelistIntervalMs: number): Promise<FloodResult> {
  const serverScript = path.join(path.dirname(fileURLToPath(import.meta.url)), "server.js");
  const source = mcpServer(
    { name: "flood", command: process.execPath, args: [serverScript, String(TOOLS), String(EVERY_MS), String(SECONDS * 1_000)] },
    { minRelistIntervalMs, connectTimeoutMs: 60_000 },
  );
  const engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [source] });
  let listChanges = 0;
  source.onChange(() => (listChanges += 1));
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const latencies: number[] = [];
  const service: number[] = [];
  const cpuBefore = process.cpuUsage();
  const serverCpuBefore = await childCpuSeconds(source.status().pid);
  const started = performance.now();
  loop.enable();
  try {
    for (let i = 0; i * ARRIVAL_MS < SECONDS * 1_000; i += 1) {
      const asked = started + i * ARRIVAL_MS;
      await sleep(asked - performance.now());
      const t0 = performance.now();
      const run = await engine.prepareRun({ sessionId: `s${i % 10}` });
      await run.search(QUERIES[i % QUERIES.length]!);
      const done = performance.now();
      latencies.push(done - asked);
      service.push(done - t0);
      await run.end();
    }
  } finally {
    loop.disable();
  }
  const cpu = process.cpuUsage(cpuBefore);
  const serverCpuAfter = await childCpuSeconds(source.status().pid);
  const lists = /lists=(\d+)(?!.*lists=)/.exec(source.status().stderr ?? "")?.[1];
  await engine.close();
  return {
    minRelistIntervalMs,
    seconds: round((performance.now() - started) / 1_000),
    parentCpuSeconds: round((cpu.user + cpu.system) / 1e6),
    serverCpuSeconds: serverCpuBefore === undefined || serverCpuAfter === undefined ? undefined : round(serverCpuAfter - serverCpuBefore),
    runs: latencies.length,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    serviceP50Ms: round(percentile(service, 50)),
    maxLoopStallMs: round(loop.max / 1e6),
    listsAnswered: lists === undefined ? undefined : Number(lists),
    listChanges,
  };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

async function main(): Promise<void> {
  console.error(`mcp-flood: ${TOOLS} tools, list_changed every ${EVERY_MS} ms for ${SECONDS} s; minRelistIntervalMs ${INTERVALS.join(", ")}`);
  const results: FloodResult[] = [];
  for (const interval of INTERVALS) {
    const result = await flood(interval);
    console.error(JSON.stringify(result));
    results.push(result);
  }
  console.log(
    "| minRelistIntervalMs | parent CPU s | server CPU s | runs | prepareRun+search p50 ms | p99 ms | service p50 ms | max loop stall ms | tools/list answered | list changes |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of results) {
    console.log(
      `| ${r.minRelistIntervalMs} | ${r.parentCpuSeconds} | ${r.serverCpuSeconds ?? "?"} | ${r.runs} | ${r.p50Ms} | ${r.p99Ms} | ${r.serviceP50Ms} | ${r.maxLoopStallMs} | ${r.listsAnswered ?? "?"} | ${r.listChanges} |`,
    );
  }
}

await main();
