/**
 * The command line of a suite run alone (`node dist/bench/<suite>/main.js …`): its arguments
 * parsed (a bad one exits 2), the suite run with progress on stderr, its tables on stdout, its
 * result written as JSON when asked, and exit 1 when the suite broke (not when a figure is slow).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { progress, type Progress } from "./progress.js";

export interface SuiteCommand<Plan, Result> {
  /** The suite's name: the progress prefix, and the folder its main.js sits in. */
  name: string;
  parse(argv: readonly string[]): { plan: Plan; json?: string };
  run(plan: Plan & { log: Progress }): Promise<Result>;
  markdown(result: Result, heading: string): string[];
  /** What broke in the run (each logged as BROKEN), none when it measured everything. */
  problems(result: Result): string[];
}

async function suiteMain<Plan, Result>(suite: SuiteCommand<Plan, Result>, argv: readonly string[]): Promise<number> {
  let parsed: { plan: Plan; json?: string };
  try {
    parsed = suite.parse(argv);
  } catch (error) {
    process.stderr.write(`${suite.name}: ${(error as Error).message}\n`);
    return 2;
  }
  const log = progress({ prefix: suite.name });
  const result = await suite.run({ ...parsed.plan, log });
  if (parsed.json) writeFileSync(parsed.json, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${suite.markdown(result, "##").join("\n")}\n`);
  const problems = suite.problems(result);
  for (const p of problems) log(`BROKEN: ${p}`);
  return problems.length > 0 ? 1 : 0;
}

/** Runs the suite when this process was started as its main.js, then exits with its status. */
export async function runWhenMain<Plan, Result>(suite: SuiteCommand<Plan, Result>): Promise<void> {
  const entry = process.argv[1] ? path.resolve(process.argv[1]) : "";
  if (!entry.endsWith(`${path.sep}${suite.name}${path.sep}main.js`)) return;
  const status = await suiteMain(suite, process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${suite.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  });
  // Everything started has been closed; exit rather than wait on an idle keep-alive socket.
  process.exit(status);
}
