/**
 * Test fixtures: a real BridgeHandler over an in-memory tool list (the parent side's input, the
 * way the engine builds one over its dispatcher) and process accounting for leak checks.
 */
import { readFileSync } from "node:fs";
import { ApprovalDeniedError, ToolNotFoundError } from "../../src/errors.js";
import { findSandboxProcesses } from "../../src/sandbox/index.js";
import type { SandboxPool } from "../../src/sandbox/pool/pool.js";
import type { BridgeCallOptions, BridgeHandler } from "../../src/sandbox/types.js";

export interface FakeTool {
  id: string;
  description: string;
  inputSchema: Record<string, unknown>;
  execute(args: Record<string, unknown>, call: BridgeCallOptions): Promise<unknown> | unknown;
}

export interface FakeBridge extends BridgeHandler {
  calls: Array<{ op: string; arg: unknown }>;
  /** Signals of calls that were in flight, for abort checks. */
  signals: AbortSignal[];
}

const TOOLS: FakeTool[] = [
  {
    id: "core:weather",
    description: "Current weather for a city",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: (args) => ({ city: args.city, tempC: 21, sky: "clear" }),
  },
  {
    id: "plugin:mail:send",
    description: "Send an email (needs approval)",
    inputSchema: { type: "object", properties: { to: { type: "string" } } },
    execute: () => {
      throw new ApprovalDeniedError("The user denied sending this email.");
    },
  },
  {
    id: "core:wait",
    description: "Waits until the run is aborted",
    inputSchema: { type: "object" },
    execute: (_args, { signal }) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      }),
  },
  {
    id: "core:big",
    description: "Returns a large text",
    inputSchema: { type: "object", properties: { bytes: { type: "number" } } },
    execute: (args) => "x".repeat(Number(args.bytes ?? 1000)),
  },
  {
    id: "core:crash",
    description: "Throws a plain Error",
    inputSchema: { type: "object" },
    execute: () => {
      throw new Error("disk on fire");
    },
  },
];

/** search/describe/call over TOOLS; `gate` (when given) is awaited by every call before it runs. */
export function fakeBridge(gate?: () => Promise<void>): FakeBridge {
  const calls: FakeBridge["calls"] = [];
  const signals: AbortSignal[] = [];
  const find = (id: string) => {
    const tool = TOOLS.find((t) => t.id === id);
    if (!tool) throw new ToolNotFoundError(id);
    return tool;
  };
  return {
    calls,
    signals,
    async search(query, options, call) {
      calls.push({ op: "search", arg: query });
      signals.push(call.signal);
      if (gate) await gate();
      const words = (Array.isArray(query) ? query.join(" ") : query).toLowerCase().split(/\s+/);
      return TOOLS.filter((t) => words.some((w) => t.description.toLowerCase().includes(w) || t.id.includes(w)))
        .slice(0, options?.limit ?? 8)
        .map((t) => ({ id: t.id, description: t.description }));
    },
    async describe(id, call) {
      calls.push({ op: "describe", arg: id });
      signals.push(call.signal);
      if (gate) await gate();
      const tool = find(id);
      return { id: tool.id, description: tool.description, inputSchema: tool.inputSchema };
    },
    async call(id, args, call) {
      calls.push({ op: "call", arg: { id, args } });
      signals.push(call.signal);
      if (gate) await gate();
      return find(id).execute(args as Record<string, unknown>, call);
    },
  };
}

/** A gate the test opens: calls wait until open() is called. */
export function manualGate(): { gate: () => Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { gate: () => opened, open };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** Live processes (wrappers and node) belonging to `pool`, found by their command-line marker. */
export function poolProcesses(pool: SandboxPool): number[] {
  return findSandboxProcesses(pool.tag).map((p) => p.pid);
}

/** Parent pid of `pid` from /proc (undefined when it is gone). */
export function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/**
 * Sandbox processes of `pool` that the pool does not account for: every live process with the
 * pool's marker must be one of its tracked children or the node process under one of them
 * (unshare's child). Anything else is an orphan that escaped reaping.
 */
export function unaccountedProcesses(pool: SandboxPool): number[] {
  const tracked = new Set(pool.childPids());
  // A child the spawner has just forked is its child before its pid reaches the pool (a message
  // away); a process whose parent is the live spawner is not an orphan: the spawner kills every
  // child when it goes. Nor is the node that such a wrapper (unshare) has already forked: the
  // wrapper's --kill-child takes it down. The pool asks for a replacement in the same write as
  // the kill, so a check made as a run settles can see both before the new pid arrives.
  const spawners = new Set(pool.spawnerPids());
  const accounted = (pid: number | undefined) => pid !== undefined && (tracked.has(pid) || spawners.has(pid));
  return poolProcesses(pool).filter((pid) => {
    if (tracked.has(pid)) return false;
    const parent = parentOf(pid);
    if (parent === undefined || accounted(parent)) return false;
    return !spawners.has(parentOf(parent) ?? -1);
  });
}

export async function waitFor(check: () => boolean, timeoutMs = 5000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const SEARCH_DESCRIBE_CALL = `
const hits = await openclaw.tools.search("weather");
const tool = await openclaw.tools.describe(hits[0].id);
console.log("using", tool.id);
return await openclaw.tools.call(tool.id, { city: "Paris" });
`;
