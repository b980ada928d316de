/**
 * `serve --workers 2` over a full learned store beside an empty one: how long until it listens,
 * /healthz latency over the next seconds (while the workers load the store), whether the primary
 * ever reports a worker unresponsive, and how long SIGTERM takes. A real process tree on
 * loopback; the store is the journal a folder shared by the workers holds.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { journalLearningStore, type LearnedRow } from "../../src/index.js";
import { freePort } from "../scale/fixture.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const CLI = path.join(ROOT, "dist/src/cli/main.js");
const TOOLS = 1_000;
const POLL_MS = 50;

export interface WorkersFigure {
  records: number;
  listenMs: number;
  healthzP90Ms: number;
  healthzMaxMs: number;
  healthzErrors: number;
  unresponsiveReports: number;
  stopMs: number;
}

/** Rows in two agent scopes over the plugin's tools (no tenant: kept whatever the tokens). */
function rows(records: number): LearnedRow[] {
  const out: LearnedRow[] = [];
  const seen = Array.from({ length: 8 }, (_, i) => `c${i}`.padEnd(16, "x"));
  const perTool = Math.ceil(records / (2 * TOOLS));
  for (let i = 0; i < records; i++) {
    const scope = `agent:a${i % 2}`;
    const k = Math.floor(i / 2);
    out.push({
      scope,
      tool: `plugin:store:tool_${Math.floor(k / perTool) % TOOLS}`,
      term: `#t${k % perTool}`.padEnd(17, "q"),
      count: 3,
      sessions: 4,
      at: Date.now(),
      seen,
    });
  }
  return out;
}

function get(port: number): Promise<number | undefined> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path: "/healthz", agent: false, timeout: 30_000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode === 200 ? performance.now() - started : undefined));
    });
    req.on("error", () => resolve(undefined));
    req.end();
  });
}

export async function measureServeWorkers(records: number, seconds = 10): Promise<WorkersFigure> {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-store-workers-"));
  let child: ChildProcess | undefined;
  try {
    mkdirSync(path.join(dir, "plugins"));
    writeFileSync(
      path.join(dir, "plugins", "store.mjs"),
      `export default { id: "store", tools: Array.from({ length: ${TOOLS} }, (_, i) => ({ name: "tool_" + i, description: "Synthetic tool " + i + ".", inputSchema: { type: "object", properties: {} }, execute: () => i })) };\n`,
    );
    const cache = path.join(dir, "cache");
    mkdirSync(cache, { mode: 0o700 });
    if (records > 0) {
      const store = journalLearningStore({ dir: cache, learning: { enabled: true } });
      await store.append(rows(records));
      await store.close?.();
    }
    const port = await freePort();
    writeFileSync(path.join(dir, "config.json5"), JSON.stringify({ tools: { toolSearch: { mode: "tools", indexCacheDir: "cache" } }, plugins: ["plugins"] }));
    const started = performance.now();
    const proc = spawn(process.execPath, [CLI, "serve", "--config", path.join(dir, "config.json5"), "--port", String(port), "--workers", "2"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = proc;
    let stderr = "";
    proc.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    await new Promise<void>((resolve, reject) => {
      let out = "";
      proc.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
        if (/listening/.test(out)) resolve();
      });
      proc.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr.slice(-2_000)}`)));
    });
    const listenMs = performance.now() - started;
    const latencies: number[] = [];
    let errors = 0;
    for (const until = performance.now() + seconds * 1_000; performance.now() < until;) {
      const ms = await get(port);
      if (ms === undefined) errors++;
      else latencies.push(ms);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const stopStarted = performance.now();
    await new Promise<void>((resolve) => {
      proc.once("exit", () => resolve());
      proc.kill("SIGTERM");
    });
    const stopMs = performance.now() - stopStarted;
    latencies.sort((a, b) => a - b);
    const round = (x: number) => Math.round(x * 10) / 10;
    return {
      records,
      listenMs: round(listenMs),
      healthzP90Ms: round(latencies[Math.floor(latencies.length * 0.9)] ?? 0),
      healthzMaxMs: round(latencies.at(-1) ?? 0),
      healthzErrors: errors,
      unresponsiveReports: (stderr.match(/unresponsive/g) ?? []).length,
      stopMs: round(stopMs),
    };
  } finally {
    if (child !== undefined && child.exitCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}
