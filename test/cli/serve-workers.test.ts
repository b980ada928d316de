/** `serve --workers 2` as a real process tree: two PIDs answer, /healthz shows both, SIGTERM leaves nothing behind. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startCli, writeJson, type ServerProcess } from "../e2e/processes.js";

const servers: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

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
});
