/**
 * `serve --workers 2` as a real process tree: two PIDs answer, /healthz shows both, SIGTERM leaves
 * nothing behind; a crashing slot comes back on its own budget, no worker left exits 1, and a
 * stopped (SIGSTOP) worker is reported unresponsive.
 *
 * Slow on purpose, every test past 5 s: each starts a real two-worker cluster (a primary and two
 * workers, seconds on a quiet 2-core machine) and waits for its supervision to act, restarts, a
 * cool-down and heartbeats included. The tests run one after another: CPU taken by another
 * cluster would make a worker miss its heartbeats.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startCli, writeJson, type ServerProcess } from "../e2e/processes.js";

const servers: ServerProcess[] = [];
/** Every worker pid a test saw: resumed (a stopped one cannot drain) and killed if still there. */
const workerPids = new Set<number>();
afterEach(async () => {
  for (const pid of workerPids) signal(pid, "SIGCONT");
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  for (const pid of workerPids) signal(pid, "SIGKILL");
  workerPids.clear();
});

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** Every descendant of a pid (ps, one call). */
function descendants(root: number): number[] {
  const out = execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" });
  const children = new Map<number, number[]>();
  for (const line of out.trim().split("\n")) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    children.set(ppid!, [...(children.get(ppid!) ?? []), pid!]);
  }
  const found: number[] = [];
  const walk = (pid: number): void => {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(root);
  return found;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** One GET on a fresh connection (no keep-alive), so the primary hands each to the next worker. */
function healthz(url: string): Promise<{ cluster: { worker: { pid: number; index: number }; workers: Array<{ pid: number; state: string }> } }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/healthz`, { agent: false, headers: { connection: "close" } }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve(JSON.parse(body) as never));
    });
    req.on("error", reject);
    req.end();
  });
}

type WorkerView = { index: number; pid: number; state: string; restarts: number; retryAt?: string };
type Health = { cluster: { worker: { pid: number; index: number }; workers: WorkerView[] } };

/** /healthz, or undefined when no worker takes the connection (restarting, or handed to a stopped one) in 3 s. */
function tryHealthz(url: string): Promise<Health | undefined> {
  return new Promise((resolve) => {
    const req = request(`${url}/healthz`, { agent: false, headers: { connection: "close" }, timeout: 3_000 }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve(res.statusCode === 200 ? (JSON.parse(body) as Health) : undefined));
      res.on("error", () => resolve(undefined));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(undefined));
    req.end();
  });
}

/** Polls /healthz until the workers' view satisfies `done`; fails after 90 s naming what it last saw. */
async function waitForWorkers(url: string, what: string, done: (workers: WorkerView[]) => boolean): Promise<WorkerView[]> {
  const deadline = Date.now() + 90_000;
  let last: WorkerView[] | undefined;
  while (Date.now() < deadline) {
    const health = await tryHealthz(url);
    if (health && health.cluster.workers.length > 0) {
      last = health.cluster.workers;
      for (const w of last) if (w.pid) workerPids.add(w.pid);
      if (done(last)) return last;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
}

/** A two-worker gateway with these `gateway.workers` settings (tools mode: no sandbox children). */
async function startTwoWorkers(
  workers: Record<string, number>,
  config = path.join(mkdtempSync(path.join(tmpdir(), "toolsearch-workers-")), "config.json5"),
): Promise<ServerProcess> {
  writeJson(config, {
    tools: { toolSearch: { mode: "tools" } },
    provider: { api: "chat", baseURL: "http://127.0.0.1:9/v1", model: "none" },
    gateway: { workers },
  });
  const server = await startCli(["serve", "--config", config, "--port", "0", "--workers", "2"]);
  servers.push(server);
  await waitForWorkers(server.url, "both workers ready", (w) => w.every((x) => x.state === "ready"));
  return server;
}

const readyWithNewPid = (index: number, old: number) => (w: WorkerView[]) => w[index]!.state === "ready" && w[index]!.pid !== old;

describe("toolsearch serve --workers", () => {
  it("answers from two PIDs, reports both in /healthz, shares one snapshot, and leaves no process after SIGTERM", { timeout: 90_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-workers-"));
    const config = writeJson(path.join(dir, "config.json5"), {
      tools: { toolSearch: { mode: "code", indexCacheDir: "snapshots" } },
      provider: { api: "chat", baseURL: "http://127.0.0.1:9/v1", model: "none" },
    });
    const server = await startCli(["serve", "--config", config, "--port", "0", "--workers", "2"]);
    servers.push(server);
    const primary = server.child.pid!;
    const pids = new Set<number>();
    let last;
    for (let i = 0; i < 40 && pids.size < 2; i++) {
      last = await healthz(server.url);
      pids.add(last.cluster.worker.pid);
    }
    expect(pids.size).toBe(2);
    expect(pids.has(primary)).toBe(false);
    expect(last!.cluster.workers.map((w) => w.state)).toEqual(["ready", "ready"]);
    expect(new Set(last!.cluster.workers.map((w) => w.pid))).toEqual(pids);
    expect(readdirSync(path.join(dir, "snapshots")).filter((f) => f.endsWith(".tsidx"))).toHaveLength(1);

    const tree = descendants(primary);
    expect(tree.length).toBeGreaterThanOrEqual(2); // the workers, and their code-pool children
    const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)));
    server.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    for (let i = 0; i < 50 && tree.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    expect(tree.filter(alive)).toEqual([]);
  });

  it("refuses a bad --workers value with exit 2", async () => {
    const { spawnSync } = await import("node:child_process");
    const { CLI } = await import("../e2e/processes.js");
    const result = spawnSync(process.execPath, [CLI, "serve", "--workers", "zero"], { encoding: "utf8", timeout: 20_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--workers must be "auto" or an integer from 1 to 256');
  });

  it("restarts a crashing slot on its own budget, cools it down, then brings it back; the other slot is untouched", { timeout: 240_000 }, async () => {
    // A budget of one restart: the two deaths must fall within a minute even when a worker takes
    // tens of seconds to start on a loaded machine; a cool-down long enough for a slow /healthz poll
    // (3 s at most per try) to see it, and no longer: the test waits it out.
    const server = await startTwoWorkers({ restartsPerMinute: 1, cooldownMs: 8_000 });
    let workers = await waitForWorkers(server.url, "both ready", (w) => w.every((x) => x.state === "ready"));
    const other = workers[1]!.pid;
    const old = workers[0]!.pid;
    process.kill(old, "SIGKILL");
    workers = await waitForWorkers(server.url, "slot 0 back after the first kill", readyWithNewPid(0, old));
    expect(workers[0]!.restarts).toBe(1);
    // A second death within the minute: slot 0's budget (1) is spent, and only slot 0's.
    const third = workers[0]!.pid;
    process.kill(third, "SIGKILL");
    workers = await waitForWorkers(server.url, "slot 0 cooling down", (w) => w[0]!.state === "cooling-down");
    expect(workers[0]!.retryAt).toEqual(expect.any(String));
    expect(workers[1]).toMatchObject({ pid: other, restarts: 0 });
    expect(server.stderr()).toContain("slot 0 spent its 1 restart this minute, cooling down: it is retried in 8.0 s");

    workers = await waitForWorkers(server.url, "slot 0 back after its cool-down", readyWithNewPid(0, third));
    expect(workers[0]!.restarts).toBe(2);
    expect(workers[1]).toMatchObject({ pid: other, restarts: 0 });
    expect(server.stderr()).toContain("slot 0 cooled down; starting a worker again");
    expect(server.child.exitCode).toBeNull();
  });

  it("exits 1 when every slot has spent its restarts, leaving no process", { timeout: 240_000 }, async () => {
    const server = await startTwoWorkers({ restartsPerMinute: 1 });
    const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)));
    let workers = await waitForWorkers(server.url, "both ready", (w) => w.every((x) => x.state === "ready"));
    const primary = server.child.pid!;
    // Slot 0 dies twice: restarted once, then its budget (1) is spent and it cools down.
    const first0 = workers[0]!.pid;
    process.kill(first0, "SIGKILL");
    workers = await waitForWorkers(server.url, "slot 0 restarted once", readyWithNewPid(0, first0));
    process.kill(workers[0]!.pid, "SIGKILL");
    workers = await waitForWorkers(server.url, "slot 0 cooling down", (w) => w[0]!.state === "cooling-down");
    // Slot 1 the same, alone now: its first death closes the shared socket, so the restarted worker
    // must reopen the announced port; its second leaves no worker, and the primary exits 1.
    const first1 = workers[1]!.pid;
    process.kill(first1, "SIGKILL");
    workers = await waitForWorkers(server.url, "slot 1 restarted once", readyWithNewPid(1, first1));
    const tree = descendants(primary);
    process.kill(workers[1]!.pid, "SIGKILL");
    expect(await exited).toBe(1);
    for (let i = 0; i < 50 && tree.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    expect(tree.filter(alive)).toEqual([]);
    expect(server.stderr()).toContain("no worker left: every slot spent its restarts; exiting 1");
  });

  it("reports a stopped (SIGSTOP) worker unresponsive, and ready again once it runs (SIGCONT)", { timeout: 240_000 }, async () => {
    const server = await startTwoWorkers({ heartbeatMs: 250, killUnresponsiveMs: 0 });
    const [, stopped] = await waitForWorkers(server.url, "both ready", (w) => w.every((x) => x.state === "ready"));
    process.kill(stopped!.pid, "SIGSTOP");
    const workers = await waitForWorkers(server.url, "worker 1 unresponsive", (w) => w[1]!.state === "unresponsive");
    expect(workers[1]!.pid).toBe(stopped!.pid);
    process.kill(stopped!.pid, "SIGCONT");
    const back = await waitForWorkers(server.url, "worker 1 ready again", (w) => w[1]!.state === "ready");
    expect(back[1]).toMatchObject({ pid: stopped!.pid, restarts: 0 });
    expect(server.stderr()).toMatch(/worker 1 \(pid \d+\) sent no heartbeat for [\d.]+ s; unresponsive \(not ready\)/);
  });

  it("kills a worker silent past gateway.workers.killUnresponsiveMs (SIGKILL) and starts another", { timeout: 240_000 }, async () => {
    const server = await startTwoWorkers({ heartbeatMs: 250, killUnresponsiveMs: 1_500 });
    const [, stuck] = await waitForWorkers(server.url, "both ready", (w) => w.every((x) => x.state === "ready"));
    process.kill(stuck!.pid, "SIGSTOP");
    const workers = await waitForWorkers(server.url, "a new worker 1", readyWithNewPid(1, stuck!.pid));
    expect(workers[1]!.restarts).toBe(1);
    for (let i = 0; i < 50 && alive(stuck!.pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(stuck!.pid)).toBe(false);
    expect(server.stderr()).toMatch(/worker 1 \(pid \d+\) silent for [\d.]+ s; killing it \(SIGKILL\)/);
  });

  it("lets a worker that cannot start again exit, so its slot cools down instead of hanging in starting", { timeout: 240_000 }, async () => {
    const config = path.join(mkdtempSync(path.join(tmpdir(), "toolsearch-workers-")), "config.json5");
    const server = await startTwoWorkers({ restartsPerMinute: 2 }, config);
    const [first, other] = await waitForWorkers(server.url, "both ready", (w) => w.every((x) => x.state === "ready"));
    // The file changes under the running cluster: a restarted worker reads it and refuses it (exit 2).
    writeJson(config, { gateway: { port: "eighty" } });
    process.kill(first!.pid, "SIGKILL");
    const workers = await waitForWorkers(server.url, "slot 0 cooling down", (w) => w[0]!.state === "cooling-down");
    expect(workers[0]!.restarts).toBe(2);
    expect(workers[1]).toMatchObject({ pid: other!.pid, state: "ready", restarts: 0 });
    expect(server.stderr()).toMatch(/worker 0 \(pid \d+\) exited \(2\)/);
  });

  it("refuses a kill limit that leaves no room for the unresponsive mark, with exit 2", async () => {
    const { spawnSync } = await import("node:child_process");
    const { CLI } = await import("../e2e/processes.js");
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-workers-"));
    const config = writeJson(path.join(dir, "config.json5"), { gateway: { workers: { heartbeatMs: 1_000, killUnresponsiveMs: 2_000 } } });
    const result = spawnSync(process.execPath, [CLI, "serve", "--config", config, "--workers", "2"], { encoding: "utf8", timeout: 20_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("gateway.workers.killUnresponsiveMs: 2000 must be 0 (never kill) or more than 3 × heartbeatMs (3000)");
  });
});
