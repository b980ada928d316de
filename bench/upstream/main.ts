/**
 * The upstream benchmark alone (it is also the `upstream` suite of `npm run bench`):
 *
 *   npm run build && node dist/bench/upstream/main.js [--quick] [--unshared] [--json FILE]
 *     [--turns N] [--connect-timeout-ms N] [--slow-ms N] [--flood-calls N] [--quiet-calls N] [--quiet-gap-ms N]
 *
 * Prints progress on stderr and its tables on stdout (bench/upstream/upstream-bench.ts says what
 * each row measures). Exit status 1 when the benchmark broke (a turn or a quiet call failed), not
 * when a figure is slow; 2 for bad arguments.
 */
import path from "node:path";
import { flagValue } from "../harness/args.js";
import { runWhenMain } from "../harness/suite-main.js";
import { upstreamMarkdown } from "../report/upstream.js";
import { upstreamPlan, type UpstreamPlan } from "./plan.js";
import { runUpstreamBench, upstreamProblems } from "./upstream-bench.js";

const NUMERIC: Record<string, (plan: UpstreamPlan, n: number) => void> = {
  "--turns": (p, n) => void (p.turns = n),
  "--connect-timeout-ms": (p, n) => void (p.connectTimeoutMs = n),
  "--slow-ms": (p, n) => void (p.slowMs = n),
  "--flood-calls": (p, n) => void (p.floodCalls = n),
  "--quiet-calls": (p, n) => void (p.quietCalls = n),
  "--quiet-gap-ms": (p, n) => void (p.quietGapMs = n),
};

export function parseUpstreamArgs(argv: readonly string[]): { plan: UpstreamPlan; json?: string } {
  const plan = upstreamPlan(argv.includes("--quick"));
  let json: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const value = (): string => flagValue(argv, ++i, arg);
    const setter = NUMERIC[arg];
    if (setter) {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) throw new Error(`${arg} needs a positive whole number`);
      setter(plan, n);
    } else if (arg === "--quick") continue;
    else if (arg === "--unshared") plan.unshared = true;
    else if (arg === "--json") json = path.resolve(value());
    else throw new Error(`unknown option ${arg}; see bench/upstream/main.ts for usage`);
  }
  return { plan, ...(json ? { json } : {}) };
}

await runWhenMain({ name: "upstream", parse: parseUpstreamArgs, run: runUpstreamBench, markdown: upstreamMarkdown, problems: upstreamProblems });
