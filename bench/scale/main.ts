/**
 * Beyond one machine (issue 12): 3 gateway replicas (`serve --workers 2` each) behind HAProxy on
 * loopback, 200 concurrent sessions, every answer checked; then one replica is killed (SIGKILL,
 * its whole process group) mid-run. Requests started after the balancer saw it go must all
 * succeed through the others; requests in flight on it may fail, and only with a 502 from the
 * balancer, never with a wrong answer (another session's, another tool's).
 *
 *   npm run build && node dist/bench/scale/main.js [--sessions 200] [--turns 3] [--install]
 *
 * Needs HAProxy (Debian's package). Without it: with --install (and root) it runs
 * `apt-get install -y haproxy`; otherwise it prints how to get it and exits 0 (skipped).
 * Loopback only; every loop is bounded (sessions × turns). Not part of the test suite or the
 * CI quick bench (it needs apt and takes longer than 20 s).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, postRun, writeAcmePlugin } from "./fixture.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const CLI = path.join(ROOT, "dist/src/cli/main.js");
const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SESSIONS = arg("--sessions", 200);
const TURNS = arg("--turns", 3);
const REPLICAS = 3;
const TARGET = "geo_get_weather_forecast";
/** The scripted provider plans the same turn for the same request: every answer must carry TARGET's result and the session's own id. */
const REQUEST = "Get the weather forecast for Paris using the mapping service.";
/** A request is "later" when it starts this long after the kill: the balancer's health check (every 200 ms, down after 2 misses) has seen the replica go. */
const DETECT_MS = 1_500;

function haproxyBinary(): string | undefined {
  const which = spawnSync("sh", ["-c", "command -v haproxy"], { encoding: "utf8" });
  return which.status === 0 ? which.stdout.trim() : undefined;
}

function ensureHaproxy(): string | undefined {
  const found = haproxyBinary();
  if (found !== undefined) return found;
  if (!process.argv.includes("--install")) {
    console.log("bench/scale skipped: haproxy is not installed. Install it (`apt-get install -y haproxy`) or rerun with --install (as root, Debian/Ubuntu).");
    return undefined;
  }
  console.log("installing haproxy (apt-get install -y haproxy)…");
  const apt = spawnSync("apt-get", ["install", "-y", "haproxy"], { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  if (apt.status !== 0) {
    console.log("bench/scale skipped: `apt-get install -y haproxy` failed (not root, or no package index: run apt-get update).");
    return undefined;
  }
  return haproxyBinary();
}

interface Proc {
  child: ChildProcess;
  stderr: () => string;
}

/** Starts a command in its own process group and waits for `ready` on stdout (or stderr). */
function start(command: string, args: string[], ready: RegExp, what: string): Promise<Proc> {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start in 60 s:\n${err.slice(-2000)}`)), 60_000);
    const check = () => {
      if (ready.test(out) || ready.test(err)) {
        clearTimeout(timer);
        resolve({ child, stderr: () => err });
      }
    };
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      check();
    });
    child.stderr!.on("data", (c: Buffer) => {
      err = (err + c.toString()).slice(-20_000);
      check();
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${err.slice(-2000)}`));
    });
  });
}

function killGroup(proc: Proc, signal: NodeJS.Signals): void {
  try {
    process.kill(-proc.child.pid!, signal);
  } catch {
    // Already gone.
  }
}

interface Outcome {
  session: number;
  turn: number;
  startedAt: number;
  status: number;
  /** Empty when the answer is right; else what is wrong. */
  wrong: string;
  body: string;
}

/** One session's turns, one after the other; every answer checked. */
async function session(port: number, id: number, turns: number, phase: string, t0: number): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const sessionId = `${phase}-s${id}-t${turn}`;
    const startedAt = performance.now() - t0;
    const { status, text } = await postRun(port, JSON.stringify({ sessionId, input: REQUEST, mode: "tools" }));
    let wrong = "";
    if (status === 200) {
      try {
        const json = JSON.parse(text) as { sessionId?: string; answer?: string; toolCalls?: Array<{ name: string }> };
        if (json.sessionId !== sessionId) wrong = `answer for session ${json.sessionId}, not ${sessionId}`;
        else if (!String(json.answer).includes(`"tool":"${TARGET}"`)) wrong = `answer without the ${TARGET} result: ${String(json.answer).slice(0, 200)}`;
      } catch {
        wrong = "a 200 that is not JSON";
      }
    }
    outcomes.push({ session: id, turn, startedAt, status, wrong, body: text.slice(0, 300) });
  }
  return outcomes;
}

async function drive(port: number, phase: string, sessions: number, turns: number, t0: number): Promise<Outcome[]> {
  const all = await Promise.all(Array.from({ length: sessions }, (_, i) => session(port, i, turns, phase, t0)));
  return all.flat();
}

function summary(name: string, outcomes: Outcome[], ms: number): string {
  const ok = outcomes.filter((o) => o.status === 200 && o.wrong === "").length;
  const byStatus = new Map<number, number>();
  for (const o of outcomes) byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1);
  return `${name}: ${outcomes.length} turns in ${(ms / 1000).toFixed(1)} s (${((outcomes.length * 1000) / ms).toFixed(1)} turns/s); ok ${ok}; statuses ${[...byStatus].map(([s, n]) => `${s}×${n}`).join(", ")}`;
}

async function main(): Promise<number> {
  const haproxy = ensureHaproxy();
  if (haproxy === undefined) return 0;
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-scale-"));
  const procs: Proc[] = [];
  try {
    writeAcmePlugin(dir, ROOT);
    const providerPort = await freePort();
    procs.push(await start(process.execPath, [CLI, "mock-provider", "--port", String(providerPort)], /listening/, "mock-provider"));
    const config = path.join(dir, "config.json5");
    writeFileSync(
      config,
      JSON.stringify({
        tools: { toolSearch: { mode: "tools", indexCacheDir: "snapshots" } },
        provider: { api: "chat", baseURL: `http://127.0.0.1:${providerPort}/v1`, model: "scripted", timeoutMs: 30_000 },
        plugins: ["plugins"],
      }),
    );
    const ports: number[] = [];
    for (let r = 0; r < REPLICAS; r++) ports.push(await freePort());
    const replicas = await Promise.all(
      ports.map((port, r) =>
        start(process.execPath, [CLI, "serve", "--config", config, "--port", String(port), "--workers", "2"], /listening/, `replica ${r}`),
      ),
    );
    procs.push(...replicas);
    const lbPort = await freePort();
    const cfg = path.join(dir, "haproxy.cfg");
    writeFileSync(
      cfg,
      [
        "global",
        "  maxconn 2000",
        "defaults",
        "  mode http",
        "  timeout connect 2s",
        "  timeout check 3s",
        "  timeout client 60s",
        "  timeout server 60s",
        // Only a failed connect is retried (on another server): the request never reached a replica.
        // A POST a replica received is never replayed: a turn may have called a tool.
        "  retries 3",
        "  option redispatch 1",
        "  retry-on conn-failure",
        "frontend fe",
        `  bind 127.0.0.1:${lbPort}`,
        "  default_backend replicas",
        "backend replicas",
        "  balance roundrobin",
        "  option httpchk GET /healthz",
        "  http-check expect status 200",
        ...ports.map((p, r) => `  server r${r} 127.0.0.1:${p} check inter 200ms fall 2 rise 2`),
        "",
      ].join("\n"),
    );
    const lb = spawn(haproxy, ["-db", "-f", cfg], { stdio: ["ignore", "ignore", "pipe"], detached: true });
    let lbErr = "";
    lb.stderr!.on("data", (c: Buffer) => (lbErr = (lbErr + c.toString()).slice(-5_000)));
    procs.push({ child: lb, stderr: () => lbErr });
    // Up when every replica answers its health check through it (bounded: 20 s).
    for (let i = 0; ; i++) {
      if (lb.exitCode !== null) throw new Error(`haproxy exited:\n${lbErr}`);
      const up = await new Promise<boolean>((resolve) => {
        const req = request({ host: "127.0.0.1", port: lbPort, path: "/healthz", agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        });
        req.on("error", () => resolve(false));
        req.end();
      });
      if (up && i > 5) break;
      if (i > 200) throw new Error(`haproxy did not answer on 127.0.0.1:${lbPort}:\n${lbErr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(
      `bench/scale: ${REPLICAS} replicas × 2 workers behind HAProxy (${spawnSync(haproxy, ["-v"], { encoding: "utf8" }).stdout.split("\n")[0]}), ${SESSIONS} concurrent sessions, mode tools, loopback`,
    );

    // Phase 1: all replicas up.
    let t0 = performance.now();
    const steady = await drive(lbPort, "steady", SESSIONS, TURNS, t0);
    console.log(summary("  all 3 replicas", steady, performance.now() - t0));

    // Phase 2: kill replica 0 (its primary and workers) while the sessions run.
    t0 = performance.now();
    let killedAt = Number.POSITIVE_INFINITY;
    const running = drive(lbPort, "kill", SESSIONS, TURNS, t0);
    await new Promise((r) => setTimeout(r, 1_500));
    killedAt = performance.now() - t0;
    killGroup(replicas[0]!, "SIGKILL");
    const during = await running;
    console.log(summary(`  replica 0 killed at ${(killedAt / 1000).toFixed(1)} s`, during, performance.now() - t0));

    // Phase 3: the two that are left.
    t0 = performance.now();
    const after = await drive(lbPort, "after", SESSIONS, 1, t0);
    console.log(summary("  after the kill (2 replicas)", after, performance.now() - t0));

    const failures: string[] = [];
    for (const o of [...steady, ...during, ...after]) if (o.wrong !== "") failures.push(`WRONG ANSWER s${o.session} t${o.turn}: ${o.wrong}`);
    for (const o of steady) if (o.status !== 200) failures.push(`steady s${o.session} t${o.turn}: ${o.status} ${o.body}`);
    const later = [...during.filter((o) => o.startedAt >= killedAt + DETECT_MS), ...after];
    for (const o of later) if (o.status !== 200) failures.push(`after the kill s${o.session} t${o.turn}: ${o.status} ${o.body}`);
    const inflight = during.filter((o) => o.startedAt < killedAt + DETECT_MS && o.status !== 200);
    for (const o of inflight) if (o.status !== 502) failures.push(`in flight s${o.session} t${o.turn}: ${o.status} (want 200 or 502) ${o.body}`);
    console.log(
      `  in flight on the killed replica: ${inflight.length} failed, all with 502: ${inflight.every((o) => o.status === 502)}${inflight[0] ? ` (e.g. ${inflight[0].body.replace(/\s+/g, " ").slice(0, 120)})` : ""}`,
    );
    console.log(`  requests started ≥ ${DETECT_MS} ms after the kill: ${later.length}, all 200: ${later.every((o) => o.status === 200)}`);
    console.log(`  wrong answers: ${[...steady, ...during, ...after].filter((o) => o.wrong !== "").length}`);
    if (failures.length > 0) {
      console.log(`FAILED (${failures.length}):\n${failures.slice(0, 20).join("\n")}`);
      return 1;
    }
    console.log("ok");
    return 0;
  } finally {
    for (const p of procs.reverse()) killGroup(p, "SIGTERM");
    await new Promise((r) => setTimeout(r, 1_000));
    for (const p of procs) killGroup(p, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
