/**
 * The launch ladder (bench/code-mode/launch-ladder.ts) that bench/code-mode/floors.ts measures:
 * it must end with exactly the pool's launch plan, add one layer per step, and every step must
 * be a command line that really starts here, or the floors it reports are of something else.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ladder } from "../../bench/code-mode/launch-ladder.js";
import type { LaunchPlan } from "../../src/sandbox/pool/launch.js";
import { createCodePool } from "../../src/sandbox/pool/pool.js";

const NODE = "/opt/node/bin/node";
const FLAGS = ["--experimental-permission", "--no-warnings", "--max-old-space-size=64"];

function exitCode(command: string, args: string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: "ignore", env: {} });
    child.on("error", reject);
    child.on("close", (code) => resolve(code));
  });
}

describe("launch ladder", () => {
  it("adds the wrappers innermost first and ends with the whole plan", () => {
    const plan: LaunchPlan = {
      command: "/usr/bin/setpriv",
      prefix: ["--pdeathsig", "KILL", "/usr/bin/prlimit", "--data=1", "--cpu=2", "/usr/bin/unshare", "--user", "--net", NODE],
      nodeFlags: FLAGS,
      unshare: true,
      prlimit: true,
      setpriv: true,
    };
    const steps = ladder(plan, NODE);
    expect(steps.map((s) => s.name)).toEqual(["node -e 0", "+ --experimental-permission", "+ the other node flags", "+ unshare", "+ prlimit", "+ setpriv"]);
    expect(steps[0]).toMatchObject({ command: NODE, args: ["-e", "0"] });
    expect(steps[3]).toMatchObject({ command: "/usr/bin/unshare", args: ["--user", "--net", NODE, ...FLAGS, "-e", "0"] });
    expect(steps[5]).toMatchObject({ command: plan.command, args: [...plan.prefix, ...FLAGS, "-e", "0"] });
  });

  it("has no wrapper steps for a plan without wrappers", () => {
    const plan: LaunchPlan = { command: NODE, prefix: [], nodeFlags: FLAGS, unshare: false, prlimit: false, setpriv: false };
    expect(ladder(plan, NODE).map((s) => s.name)).toEqual(["node -e 0", "+ --experimental-permission", "+ the other node flags"]);
  });

  it("rebuilds this machine's launch plan, and every step starts and exits 0", async () => {
    const pool = await createCodePool({ prefork: 0 });
    const plan = pool.launchPlan();
    await pool.close();
    expect(plan).toBeDefined();
    const steps = ladder(plan!, process.execPath);
    const wrappers = [plan!.setpriv, plan!.prlimit, plan!.unshare].filter(Boolean).length;
    expect(steps).toHaveLength(3 + wrappers);
    expect(steps.at(-1)).toMatchObject({ command: plan!.command, args: [...plan!.prefix, ...plan!.nodeFlags, "-e", "0"] });
    for (const step of steps) expect({ step: step.name, code: await exitCode(step.command, step.args) }).toEqual({ step: step.name, code: 0 });
  });
});
