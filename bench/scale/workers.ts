/**
 * Gateway turns/s by `serve --workers` (1, 2, 4, … up to os.availableParallelism()), in tools
 * and code modes (issue 12): one gateway process tree on loopback, the scripted provider in its
 * own process, `--sessions` concurrent sessions running `--turns` turns each (bounded), every
 * answer checked (its session id, the expected tool's result).
 *
 *   npm run build && node dist/bench/scale/workers.js [--sessions 32] [--turns 8]
 *
 * The provider and the load generator share the machine's cores with the gateway, so on a
 * small machine the figures say little about what more cores would give.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, postRun, writeAcmePlugin } from "./fixture.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const CLI = path.join(ROOT, "dist/src/cli/main.js");
const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SESSIONS = arg("--sessions", 32);
const TURNS = arg("--turns", 8);
const REQUEST = "Get the weather forecast for Paris using the mapping service.";
const TARGET = "geo_get_weather_forecast";

function start(args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr!.on("data", (c: Buffer) => (err = (err + c.toString()).slice(-5_000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(" ")} did not start:\n${err}`)), 60_000);
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      if (/listening/.test(out)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}:\n${err}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

async function turn(port: number, sessionId: string, mode: string): Promise<boolean> {
  const { status, text } = await postRun(port, JSON.stringify({ sessionId, input: REQUEST, mode }));
  try {
    const json = JSON.parse(text) as { sessionId?: string; answer?: string };
    return status === 200 && json.sessionId === sessionId && String(json.answer).includes(`"tool":"${TARGET}"`);
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-workers-bench-"));
  const children: ChildProcess[] = [];
  try {
    writeAcmePlugin(dir, ROOT);
    const providerPort = await freePort();
    children.push(await start(["mock-provider", "--port", String(providerPort)]));
    const config = path.join(dir, "config.json5");
    writeFileSync(
      config,
      JSON.stringify({
        tools: { toolSearch: { mode: "code", indexCacheDir: "snapshots" } },
        provider: { api: "chat", baseURL: `http://127.0.0.1:${providerPort}/v1`, model: "scripted", timeoutMs: 30_000 },
        plugins: ["plugins"],
      }),
    );
    const counts: number[] = [];
    for (let n = 1; n < availableParallelism(); n *= 2) counts.push(n);
    counts.push(availableParallelism());
    console.log(
      `gateway turns/s by --workers: ${SESSIONS} sessions × ${TURNS} turns, node ${process.version}, os.availableParallelism() = ${availableParallelism()}`,
    );
    for (const workers of counts) {
      const port = await freePort();
      const gateway = await start(["serve", "--config", config, "--port", String(port), "--workers", String(workers)]);
      try {
        for (const mode of ["tools", "code"]) {
          // Warm-up: one turn per session slot.
          await Promise.all(Array.from({ length: Math.min(SESSIONS, 4) }, (_, s) => turn(port, `warm-${mode}-${s}`, mode)));
          const t0 = performance.now();
          const results = await Promise.all(
            Array.from({ length: SESSIONS }, async (_, s) => {
              let ok = 0;
              for (let t = 0; t < TURNS; t++) if (await turn(port, `w${workers}-${mode}-${s}-${t}`, mode)) ok += 1;
              return ok;
            }),
          );
          const ms = performance.now() - t0;
          const ok = results.reduce((a, b) => a + b, 0);
          console.log(
            `  workers ${workers}  ${mode.padEnd(5)}  ${((SESSIONS * TURNS * 1000) / ms).toFixed(1).padStart(7)} turns/s   ok ${ok}/${SESSIONS * TURNS}`,
          );
        }
      } finally {
        await stop(gateway);
      }
    }
  } finally {
    for (const child of children) await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
