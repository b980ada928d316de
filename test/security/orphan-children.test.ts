/**
 * A parent killed without warning (SIGKILL: an OOM kill, a supervisor) cannot SIGKILL its
 * children at their deadline; a body that loops and never reads stdin must not run on forever.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../e2e/processes.js";
import { waitFor } from "../mcp/helpers.js";
import { childPids, isRunning } from "../support/proc.js";

/** Every process below `pid`. */
function descendants(pid: number): number[] {
  const direct = childPids(pid);
  return [...direct, ...direct.flatMap(descendants)];
}

const PARENT = `
import { createCodePool } from ${JSON.stringify(path.join(ROOT, "dist/src/index.js"))};
const pool = await createCodePool({ prefork: 1 });
if (!pool.report().available) { console.log("unavailable " + pool.report().reason); process.exit(0); }
console.log("layers " + JSON.stringify(pool.report().layers));
const bridge = { search: async () => [], describe: async () => ({}), call: async () => ({}) };
void pool.run("while (true) {}", bridge, { timeoutMs: 60000 });
setTimeout(() => console.log("running"), 1500);
setInterval(() => {}, 1000);
`;

describe("orphaned sandbox children", () => {
  it("a busy body dies with its parent when the parent is SIGKILLed", { timeout: 120_000 }, async (ctx) => {
    const parent = spawn(process.execPath, ["--input-type=module", "-e", PARENT], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    parent.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    await waitFor(() => out.includes("running") || out.includes("unavailable") || undefined, "the body to start", 60_000);
    if (out.includes("unavailable")) ctx.skip(`no sandbox on this host, so nothing can be orphaned: ${out.trim()}`);
    expect(out).toContain('"orphanKill":true');
    const below = descendants(parent.pid!);
    expect(below.length).toBeGreaterThan(0);
    parent.kill("SIGKILL");
    await waitFor(() => below.every((pid) => !isRunning(pid)) || undefined, "every child of the killed parent to be gone", 60_000);
  });
});
