/**
 * The stall benchmark alone (it is also the `stall` suite of `npm run bench`):
 *
 *   npm run build && node dist/bench/stall/main.js [--quick] [options]
 *
 * Prints progress on stderr and the stall tables on stdout; `--json FILE` also writes the
 * result. Sizes default to the hostile sizes of the hardening issue (quick: small ones); each
 * can be set: --tools N, --id-chars N, --regex-chars N, --schema-properties N, --unique-items N,
 * --memory-runs N, --window-ms N, --deadline-ms N, --flood-tools N, --flood-ms N, --no-flood,
 * --tenant-bodies N, --tenant-busy-ms N, --tenant-calls N, --tenant-retry-ms N, --tenant-hold cpu|sleep, --tenant-no-shares, --no-tenant-flood,
 * --amplify-turns N (0: no amplifying-provider row), --amplify-calls N, --amplify-budget BYTES
 * (gateway.maxTurnResultBytes for that row),
 * --no-code, --kinds a,b ("" for none). Exit status 1 when the benchmark broke (not when a figure misses its target),
 * 2 for bad arguments.
 */
import path from "node:path";
import { runWhenMain } from "../harness/suite-main.js";
import { stallMarkdown } from "../report/stall.js";
import { HOSTILE_KIND_NAMES, type HostileKindName } from "./hostile.js";
import { stallPlan, type StallPlan } from "./plan.js";
import { runStallBench, stallProblems } from "./stall-bench.js";
import { flagValue } from "../harness/args.js";

const NUMERIC: Record<string, (plan: StallPlan, n: number) => void> = {
  "--tools": (p, n) => void (p.tools = n),
  "--id-chars": (p, n) => void (p.targets.idChars = n),
  "--regex-chars": (p, n) => void (p.targets.regexChars = n),
  "--schema-properties": (p, n) => void (p.targets.schemaProperties = n),
  "--unique-items": (p, n) => void (p.targets.uniqueItems = n),
  "--memory-runs": (p, n) => void (p.memoryRuns = n),
  "--window-ms": (p, n) => void (p.windowMs = n),
  "--deadline-ms": (p, n) => void (p.stepDeadlineMs = n),
  "--flood-tools": (p, n) => void (p.flood ? (p.flood.tools = n) : undefined),
  "--flood-ms": (p, n) => void (p.flood ? (p.flood.windowMs = n) : undefined),
  "--tenant-bodies": (p, n) => void (p.tenantFlood ? (p.tenantFlood.floodBodies = n) : undefined),
  "--tenant-busy-ms": (p, n) => void (p.tenantFlood ? (p.tenantFlood.busyMs = n) : undefined),
  "--tenant-calls": (p, n) => void (p.tenantFlood ? (p.tenantFlood.victimCalls = n) : undefined),
  "--tenant-retry-ms": (p, n) => void (p.tenantFlood ? (p.tenantFlood.retryMs = n) : undefined),
  "--amplify-turns": (p, n) => void (p.amplify = n > 0 ? { ...(p.amplify || { calls: 32, resultBytes: 1024 * 1024 }), turns: n } : false),
  "--amplify-calls": (p, n) => void (p.amplify ? (p.amplify.calls = n) : undefined),
  "--amplify-budget": (p, n) => void (p.amplify ? (p.amplify.maxTurnResultBytes = n) : undefined),
};

export function parseStallArgs(argv: readonly string[]): { plan: StallPlan; json?: string } {
  const plan = stallPlan(argv.includes("--quick"));
  let json: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const value = (): string => flagValue(argv, ++i, arg);
    const setter = NUMERIC[arg];
    if (setter) {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 0) throw new Error(`${arg} needs a whole number`);
      setter(plan, n);
    } else if (arg === "--quick") continue;
    else if (arg === "--no-flood") plan.flood = false;
    else if (arg === "--no-tenant-flood") plan.tenantFlood = false;
    else if (arg === "--tenant-no-shares") {
      if (plan.tenantFlood) plan.tenantFlood.shares = false;
    } else if (arg === "--tenant-hold") {
      const hold = value();
      if (hold !== "cpu" && hold !== "sleep") throw new Error(`--tenant-hold needs cpu or sleep; got ${JSON.stringify(hold)}`);
      if (plan.tenantFlood) plan.tenantFlood.hold = hold;
    } else if (arg === "--no-code") plan.code = false;
    else if (arg === "--kinds") plan.kinds = parseKinds(argv[++i] ?? "");
    else if (arg === "--json") json = path.resolve(value());
    else throw new Error(`unknown option ${arg}; see bench/stall/main.ts for usage`);
  }
  return { plan, ...(json ? { json } : {}) };
}

/** A comma list of kind names; "" for none (the memory or MCP row alone). */
function parseKinds(list: string): HostileKindName[] {
  const names = list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(HOSTILE_KIND_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0) throw new Error(`--kinds: unknown ${unknown.join(", ")}; known: ${HOSTILE_KIND_NAMES.join(", ")}`);
  return names as HostileKindName[];
}

await runWhenMain({ name: "stall", parse: parseStallArgs, run: runStallBench, markdown: stallMarkdown, problems: stallProblems });
