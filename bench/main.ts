/**
 * `npm run bench`: every benchmark in one run, each figure beside the baseline it replaces,
 * measured in the same run. Writes <out>/<name>.json (every figure, the machine, the command),
 * <out>/SUMMARY.md and <out>/charts/*.svg, prints the summary on stdout and progress on stderr.
 *
 *   npm run bench                    full run → bench/results/full.json
 *   npm run bench -- --quick         the CI variant (small sizes) → bench/results/quick/quick.json
 *   npm run bench -- --only payload,relevance    some suites only (→ partial.json unless --name)
 *   npm run bench -- --update-readme also rewrite docs/benchmarks.md between <!-- bench:start/end -->
 *   npm run bench -- --quick --compare bench/results/quick-baseline.json
 *                                    also compare every figure with an earlier results file (CI)
 *   npm run bench -- --format        also write <name>.smaller-is-better.json, <name>.bigger-is-better.json
 *                                    (github-action-benchmark) and <name>.pr-comment.md beside the JSON
 *   npm run bench -- --quick --save-baseline bench/results/quick-baseline.json
 *                                    refresh the committed CI baseline (only from a run with no broken suite)
 *   npm run bench -- --from RUN.json --compare BASE.json [--format]
 *                                    compare (and format) an existing results file, measuring nothing
 *   options: --out DIR, --name NAME
 *
 * Exit status 1 for a broken benchmark (a suite threw, or a result failed its checks) or, with
 * --compare, a figure that regressed past its threshold (bench/compare/thresholds.ts); timing
 * figures are compared only as ratios measured in the same run, so a slow machine alone does not
 * fail a run. Suites whose data is absent are skipped with the reason printed.
 * Records whether the sandbox runs on this machine with its own probe on purpose: imports src/sandbox/index.ts directly.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { probeSandbox } from "../src/sandbox/index.js";
import { compareResults, comparisonText } from "./compare/compare.js";
import { figuresOf } from "./compare/figures.js";
import { writeFormats } from "./compare/formats.js";
import { runGatewayBench } from "./gateway/gateway-bench.js";
import { runImportBench } from "./import/import-bench.js";
import { machineInfo, packageVersion } from "./harness/machine.js";
import { progress, type Progress } from "./harness/progress.js";
import { SUITE_NAMES, type BenchResults, type SuiteName, type SuiteOutcome, type SuiteResults } from "./harness/results.js";
import { repoRoot, sharedDataDir } from "./lib/shared-data.js";
import { runPayloadBench } from "./payload/payload.js";
import { runRelevanceBench } from "./relevance/relevance-bench.js";
import { writeReport } from "./report/write.js";
import { runCodeModeSuite } from "./suites/code-mode-suite.js";
import { runSearchSuite } from "./suites/search-suite.js";
import { runLearningBench } from "./learning/learning-bench.js";
import { stallPlan } from "./stall/plan.js";
import { runStallBench, stallProblems } from "./stall/stall-bench.js";
import { flagValue } from "./harness/args.js";
import { upstreamPlan } from "./upstream/plan.js";
import { runUpstreamBench, upstreamProblems } from "./upstream/upstream-bench.js";

export interface BenchArgs {
  quick: boolean;
  only: SuiteName[];
  out: string;
  name: string;
  updateReadme: boolean;
  /** A results file to compare every figure with (exit 1 on a regression past its threshold). */
  compare?: string;
  /** Also write the CI formats beside the JSON. */
  format: boolean;
  /** Write this run's results here as the new baseline (when no suite broke). */
  saveBaseline?: string;
  /** Measure nothing: take this results file as the run (with --compare / --format). */
  from?: string;
}

export function parseArgs(argv: readonly string[], root: string): BenchArgs {
  let quick = false;
  let only: SuiteName[] | undefined;
  let out: string | undefined;
  let name: string | undefined;
  let updateReadme = false;
  let compare: string | undefined;
  let format = false;
  let saveBaseline: string | undefined;
  let from: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const value = (): string => flagValue(argv, ++i, arg);
    if (arg === "--quick") quick = true;
    else if (arg === "--update-readme") updateReadme = true;
    else if (arg === "--format") format = true;
    else if (arg === "--compare") compare = path.resolve(value());
    else if (arg === "--save-baseline") saveBaseline = path.resolve(value());
    else if (arg === "--from") from = path.resolve(value());
    else if (arg === "--only") {
      only = value()
        .split(",")
        .map((s) => s.trim()) as SuiteName[];
      const unknown = only.filter((s) => !SUITE_NAMES.includes(s));
      if (unknown.length > 0) throw new Error(`--only: unknown suite ${unknown.join(", ")}; known: ${SUITE_NAMES.join(", ")}`);
    } else if (arg === "--out") out = path.resolve(value());
    else if (arg === "--name") {
      name = value();
      if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) throw new Error(`--name: letters, digits, ".", "_", "-" only; got ${JSON.stringify(name)}`);
    } else throw new Error(`unknown option ${arg}; see bench/main.ts for usage`);
  }
  return {
    quick,
    only: only ?? [...SUITE_NAMES],
    out: out ?? path.join(root, "bench/results", quick ? "quick" : ""),
    name: name ?? (only ? "partial" : quick ? "quick" : "full"),
    updateReadme,
    format,
    ...(compare ? { compare } : {}),
    ...(saveBaseline ? { saveBaseline } : {}),
    ...(from ? { from } : {}),
  };
}

/** Reads a results file of `npm run bench`; throws with the reason when it is not one. */
export function readResults(file: string): BenchResults {
  if (!existsSync(file)) throw new Error(`${file}: no such file`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${file}: not JSON (${(error as Error).message})`);
  }
  const r = parsed as Partial<BenchResults>;
  if (typeof r !== "object" || r === null || r.schema !== 1 || typeof r.suites !== "object")
    throw new Error(`${file}: not a toolsearch bench results file (no schema 1 and suites)`);
  return r as BenchResults;
}

/** Sizes and counts: the full run, and the quick one CI runs (a few seconds a suite). */
export function plan(quick: boolean) {
  return quick
    ? {
        payloadSizes: [10, 100, 1_000],
        importRounds: 12,
        relevanceStride: 10,
        // MetaTool's 21,041 requests: every 20th (841 tune, 211 validate) keeps the suite a few seconds.
        metaToolStride: 20,
        // Interleaved rounds, each gateway ratio the median of the rounds' (one 6-turn run's ratio
        // moved by 100–380% between quick runs here): 16 rounds of 4 turns a mode for one session
        // (2 turns a round left CPU/turn ÷ direct ranging 0.13…0.46 within one busy run), 8 rounds
        // of 10 turns (one each) for ten.
        gateway: { tools: 1_000, sessions: [1, 10], turns: (s: number) => (s === 1 ? 4 : 10), warmUpRequests: 3, rounds: (s: number) => (s === 1 ? 16 : 8) },
        stall: stallPlan(true),
        upstream: upstreamPlan(true),
      }
    : {
        payloadSizes: [10, 100, 1_000, 10_000],
        importRounds: 30,
        relevanceStride: 1,
        metaToolStride: 1,
        gateway: { tools: 1_000, sessions: [1, 10, 100], turns: (s: number) => (s === 1 ? 10 : s === 10 ? 50 : 100), warmUpRequests: 12, rounds: 3 },
        stall: stallPlan(false),
        upstream: upstreamPlan(false),
      };
}

async function suite<T>(
  name: SuiteName,
  log: Progress,
  body: () => Promise<T | { skipped: string }>,
  check?: (result: T) => string | undefined,
): Promise<SuiteOutcome<T>> {
  const started = performance.now();
  log(`${name}: start`);
  try {
    const result = await body();
    const ms = Math.round(performance.now() - started);
    if (typeof result === "object" && result !== null && "skipped" in result) {
      log(`${name}: skipped (${(result as { skipped: string }).skipped})`);
      return { status: "skipped", reason: (result as { skipped: string }).skipped };
    }
    const problem = check?.(result as T);
    if (problem) {
      log(`${name}: FAILED: ${problem}`);
      return { status: "failed", ms, error: problem, result: result as T };
    }
    log(`${name}: done in ${(ms / 1000).toFixed(1)} s`);
    return { status: "ok", ms, result: result as T };
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    log(`${name}: FAILED: ${message}`);
    return { status: "failed", ms: Math.round(performance.now() - started), error: error instanceof Error ? error.message : String(error) };
  }
}

function gitInfo(root: string): { commit?: string; dirty?: boolean } {
  try {
    const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const dirty =
      execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() !==
      "";
    return { commit, dirty };
  } catch {
    return {};
  }
}

export async function runBench(args: BenchArgs, root: string, log: Progress, argv: readonly string[] = []): Promise<BenchResults> {
  const started = performance.now();
  const date = new Date().toISOString();
  const loadBefore = loadavg()[0] ?? 0;
  const p = plan(args.quick);
  const dataDir = sharedDataDir();
  const noData = "../shared/data not found (set TOOLSEARCH_DATA to its folder)";
  if (!dataDir) log(`shared data: ${noData}; the suites that need it are skipped`);
  const wanted = new Set(args.only);
  const suites: SuiteResults = {};

  if (wanted.has("import")) {
    suites.import = await suite("import", log, async () => runImportBench({ root, rounds: p.importRounds, log: log.scope("import") }));
  }
  if (wanted.has("payload")) {
    suites.payload = await suite(
      "payload",
      log,
      () => runPayloadBench({ sizes: p.payloadSizes, data: dataDir ? { dir: dataDir } : { skipped: noData }, log: log.scope("payload") }),
      (r) => (r.problems.length > 0 ? `wrong results: ${r.problems.join("; ")}` : undefined),
    );
  }
  if (wanted.has("code-mode")) {
    suites["code-mode"] = await suite("code-mode", log, async () => {
      const report = await probeSandbox();
      if (!report.available) return { skipped: `the code-mode sandbox cannot start here: ${report.reason ?? "unknown reason"}` };
      return runCodeModeSuite({ root, quick: args.quick, log: log.scope("code-mode") });
    });
  }
  if (wanted.has("search")) {
    suites.search = await suite("search", log, async () =>
      dataDir ? runSearchSuite({ root, quick: args.quick, log: log.scope("search") }) : { skipped: `${noData}; bench/search needs toolsdk-registry` },
    );
  }
  if (wanted.has("relevance")) {
    suites.relevance = await suite("relevance", log, async () =>
      dataDir
        ? runRelevanceBench({ dataDir, stride: p.relevanceStride, metaToolStride: p.metaToolStride, log: log.scope("relevance") })
        : { skipped: `${noData}; relevance needs Seal-Tools` },
    );
  }
  if (wanted.has("gateway")) {
    suites.gateway = await suite(
      "gateway",
      log,
      () =>
        runGatewayBench({
          tools: p.gateway.tools,
          modes: ["direct", "code", "tools"],
          sessions: p.gateway.sessions,
          turns: p.gateway.turns,
          warmUpRequests: p.gateway.warmUpRequests,
          rounds: p.gateway.rounds,
          log: log.scope("gateway"),
        }),
      (r) => {
        const failed = r.runs.filter((run) => run.failed > 0);
        return failed.length > 0
          ? `turns failed or called the wrong tool: ${failed.map((f) => `${f.mode} ×${f.sessions}: ${f.failed}`).join(", ")}`
          : undefined;
      },
    );
  }

  if (wanted.has("learning")) {
    suites.learning = await suite(
      "learning",
      log,
      async () => (dataDir ? runLearningBench({ dataDir, quick: args.quick, log: log.scope("learning") }) : { skipped: `${noData}; learning needs MetaTool` }),
      (r) => {
        const bad = r.poisoning.filter((p) => (p.scope === "agent" && p.othersChanged > 0) || p.othersFalseTop1After > p.othersFalseTop1Before);
        return bad.length > 0
          ? `poisoning moved others' rankings: ${bad.map((p) => `${p.scope}: ${p.othersChanged} lists changed, false tool first ${p.othersFalseTop1Before} → ${p.othersFalseTop1After}`).join("; ")}`
          : undefined;
      },
    );
  }
  if (wanted.has("stall")) {
    suites.stall = await suite(
      "stall",
      log,
      () => runStallBench({ ...p.stall, log: log.scope("stall") }),
      (r) => {
        const problems = stallProblems(r);
        return problems.length > 0 ? problems.join("; ") : undefined;
      },
    );
  }

  if (wanted.has("upstream")) {
    suites.upstream = await suite(
      "upstream",
      log,
      () => runUpstreamBench({ ...p.upstream, log: log.scope("upstream") }),
      (r) => {
        const problems = upstreamProblems(r);
        return problems.length > 0 ? problems.join("; ") : undefined;
      },
    );
  }

  const npm = process.env["npm_lifecycle_event"] === "bench";
  return {
    schema: 1,
    name: args.name,
    quick: args.quick,
    command: npm ? `npm run bench${argv.length ? ` -- ${argv.join(" ")}` : ""}` : `node dist/bench/main.js${argv.length ? ` ${argv.join(" ")}` : ""}`,
    date,
    durationMs: Math.round(performance.now() - started),
    toolsearch: { version: packageVersion(root), ...gitInfo(root) },
    machine: machineInfo(),
    load: { before: Math.round(loadBefore * 100) / 100, after: Math.round((loadavg()[0] ?? 0) * 100) / 100 },
    suites,
  };
}

/**
 * The command line: parses `argv` (without node and the script), runs, writes, prints the
 * summary; resolves to the exit status (0 ok, 1 a broken benchmark, 2 bad arguments). A
 * `toolsearch bench` CLI alias can call this with its own argv.
 */
export async function benchMain(argv: readonly string[]): Promise<number> {
  const root = repoRoot();
  let args: BenchArgs;
  try {
    args = parseArgs(argv, root);
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n`);
    return 2;
  }
  const log = progress();
  // Read the baseline (and --from) first: a typo in a path must not cost a whole run.
  let baseline: BenchResults | undefined;
  let from: BenchResults | undefined;
  try {
    baseline = args.compare ? readResults(args.compare) : undefined;
    from = args.from ? readResults(args.from) : undefined;
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n`);
    return 2;
  }
  let results: BenchResults;
  let out = args.out;
  if (from) {
    results = from;
    out = path.dirname(args.from!);
    log(`toolsearch bench: figures of ${path.relative(root, args.from!)} (nothing measured)`);
  } else {
    log(`toolsearch bench${args.quick ? " (quick)" : ""}: suites ${args.only.join(", ")} → ${path.relative(root, args.out) || "."}/${args.name}.json`);
    results = await runBench(args, root, log, argv);
    const written = writeReport(results, { root, out: args.out, updateReadme: args.updateReadme, log });
    process.stdout.write(`${written.summary}\n`);
  }
  let status = 0;
  const failed = SUITE_NAMES.filter((n) => results.suites[n]?.status === "failed");
  if (failed.length > 0) {
    log(`broken benchmark(s): ${failed.join(", ")}`);
    status = 1;
  }
  const figures = figuresOf(results);
  const comparison = baseline ? compareResults(baseline, results) : undefined;
  const baselineLabel = args.compare ? path.relative(root, args.compare) : undefined;
  if (comparison && baseline) {
    const label = `${baselineLabel} (${baseline.date?.slice(0, 10) ?? "undated"}${baseline.toolsearch?.commit ? `, ${baseline.toolsearch.commit.slice(0, 10)}` : ""})`;
    process.stdout.write(`\n${comparisonText(comparison, { baseline: label, now: `this run (${figures.length} figures)` })}\n`);
    if (comparison.regressed.length > 0) {
      log(`regressed past the threshold: ${comparison.regressed.map((r) => r.name).join(", ")}`);
      status = 1;
    } else log(`compared with ${baselineLabel}: no figure regressed past its threshold`);
  }
  if (args.format) {
    mkdirSync(out, { recursive: true });
    // Beside the file the figures came from: <out>/<name>.json, or the --from file's own name.
    const files = writeFormats(results, figures, out, comparison, baselineLabel, args.from ? path.basename(args.from).replace(/\.json$/, "") : results.name);
    log(`wrote ${[files.smallerIsBetter, files.biggerIsBetter, files.markdown].map((f) => path.relative(root, f)).join(", ")}`);
  }
  if (args.saveBaseline) {
    if (failed.length > 0 || from) log(`baseline not saved: ${from ? "--from measures nothing" : `a suite broke (${failed.join(", ")})`}`);
    else {
      mkdirSync(path.dirname(args.saveBaseline), { recursive: true });
      writeFileSync(args.saveBaseline, `${JSON.stringify(results, null, 2)}\n`);
      log(`saved this run as the baseline ${path.relative(root, args.saveBaseline)} (${figures.length} figures)`);
    }
  }
  return status;
}

const entry = process.argv[1] ? path.resolve(process.argv[1]) : "";
if (entry.endsWith(`${path.sep}bench${path.sep}main.js`)) {
  const status = await benchMain(process.argv.slice(2));
  // Every suite closes what it started (gateways, sandbox children, index workers); exit now
  // rather than wait on anything left referenced, such as an idle keep-alive socket.
  process.exit(status);
}
