/**
 * The MCP row: a gateway connected to one MCP server with 10,000 tools that sends
 * tools/list_changed every 50 ms (flood-server.ts, its own process), while this process runs
 * prepareRun + search back to back. A quiet window with the same server connected comes first,
 * so the run latency under flood sits beside its own baseline. CPU is this process's
 * (process.cpuUsage), i.e. the gateway's share of the flood.
 * Measures the gateway in process on purpose: imports src/config/, src/gateway/ directly.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ToolSearchEngine } from "../../src/index.js";
import { resolveServerConfig } from "../../src/config/server-config.js";
import { startGateway, type Gateway } from "../../src/gateway/gateway-server.js";
import type { Progress } from "../harness/progress.js";
import { distribution, round, roundDistribution, type Distribution } from "../harness/stats.js";
import type { Probes, WindowFigures } from "./probes.js";

export interface FloodOptions {
  tools: number;
  intervalMs: number;
  /** Length of each window (quiet, then flood). */
  windowMs: number;
}

export interface FloodPhase {
  window: WindowFigures;
  /** prepareRun + one search + end, ms. */
  runMs: Distribution;
  runs: number;
  /** CPU this process used in the window, ms (user + system; the poller thread's share is small). */
  cpuMs: number;
  /** Catalog size seen at the end of the window (the MCP tools). */
  catalogTools: number;
}

export interface FloodResult extends FloodOptions {
  quiet: FloodPhase;
  /** The flood with no runs: CPU and stalls of relisting alone. */
  floodIdle: FloodPhase;
  flood: FloodPhase;
  /** The flood window's figures, for the checks every window gets. */
  window: WindowFigures;
}

/** The compiled server beside this module; absent when the bench runs from TypeScript sources (vitest). */
function floodServerPath(): string {
  return fileURLToPath(new URL("./flood-server.js", import.meta.url));
}

export async function runFloodRow(probes: Probes, options: FloodOptions, log: Progress): Promise<FloodResult | { skipped: string }> {
  const script = floodServerPath();
  if (!existsSync(script)) return { skipped: `${script} not found (run \`npm run build\`)` };
  const server = await startFloodServer(script, options.tools);
  let gateway: Gateway | undefined;
  try {
    const config = resolveServerConfig(
      {
        tools: { toolSearch: { mode: "tools" } },
        provider: { baseURL: "http://127.0.0.1:9/v1" },
        gateway: { port: 0 },
        mcpServers: [{ name: "flood", url: server.url }],
      },
      process.cwd(),
      {},
    );
    gateway = await startGateway(config);
    const healthz = `${gateway.url}/healthz`;
    // The first run builds the index over the listed tools; that belongs to neither window.
    for (let i = 0; i < 3; i += 1) await oneRun(gateway.engine, i);
    const quiet = await phase(probes, gateway.engine, options.windowMs, healthz);
    log(`mcp quiet: run p50 ${quiet.runMs.p50} ms, p99 ${quiet.runMs.p99} ms, loop max ${quiet.window.loopMaxMs} ms, ${quiet.catalogTools} tools`);
    server.send(`flood ${options.intervalMs}`);
    const floodIdle = await phase(probes, gateway.engine, options.windowMs, healthz, false);
    log(`mcp flood, no runs: CPU ${floodIdle.cpuMs} ms in ${floodIdle.window.wallMs} ms, loop max ${floodIdle.window.loopMaxMs} ms`);
    const flood = await phase(probes, gateway.engine, options.windowMs, healthz);
    server.send("quiet");
    log(
      `mcp flood every ${options.intervalMs} ms: run p50 ${flood.runMs.p50} ms, p99 ${flood.runMs.p99} ms, loop max ${flood.window.loopMaxMs} ms, CPU ${flood.cpuMs} ms in ${flood.window.wallMs} ms`,
    );
    return { ...options, quiet, floodIdle, flood, window: flood.window };
  } finally {
    await gateway?.close();
    await server.close();
  }
}

/** One window: prepareRun + search back to back (or, with `runs` false, nothing but the gateway's own work). */
async function phase(probes: Probes, engine: ToolSearchEngine, windowMs: number, healthz: string, runs = true): Promise<FloodPhase> {
  const cpu = process.cpuUsage();
  const { figures, value: times } = await probes.measure(async () => {
    const samples: number[] = [];
    const started = performance.now();
    if (!runs) await new Promise((resolve) => setTimeout(resolve, windowMs));
    for (let i = 0; performance.now() - started < windowMs; i += 1) {
      const t0 = performance.now();
      await oneRun(engine, i);
      samples.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    return samples;
  }, healthz);
  const used = process.cpuUsage(cpu);
  return {
    window: figures,
    runMs: roundDistribution(distribution(times), 2),
    runs: times.length,
    cpuMs: round((used.user + used.system) / 1000, 0),
    catalogTools: engine.catalogStatus().size,
  };
}

/** What a session does on every turn: prepare a run over the (relisted) catalog, search it, end it. */
async function oneRun(engine: ToolSearchEngine, i: number): Promise<void> {
  const run = await engine.prepareRun({ sessionId: `stall-flood-${i % 16}`, mode: "tools" });
  await run.search("flood tool number");
  await run.end();
}

interface FloodServer {
  url: string;
  send(line: string): void;
  close(): Promise<void>;
}

async function startFloodServer(script: string, tools: number): Promise<FloodServer> {
  const child: ChildProcess = spawn(process.execPath, [script, "--tools", String(tools)], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = "";
    const timeout = setTimeout(() => reject(new Error("flood server did not start in 30 s")), 30_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      const line = buffer.split("\n")[0];
      if (buffer.includes("\n") && line) {
        clearTimeout(timeout);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timeout);
      reject(new Error(`flood server exited (${code}) before listening`));
    });
  }).catch(async (error: unknown) => {
    child.kill();
    await exited;
    throw error;
  });
  return {
    url,
    send: (line) => void child.stdin!.write(`${line}\n`),
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin!.end("exit\n");
        const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(killer);
      }
    },
  };
}
