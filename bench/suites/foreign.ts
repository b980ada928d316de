/**
 * bench/search and bench/code-mode are other engineers' benchmarks. Today each is a command-line
 * script (`await main()` at module level, flags read from process.argv, results written to
 * bench/results/<name>.json), so importing one would run it. Until they export a function
 * (`runSearchBench(options)` / `runCodeModeBench(options)`, see bench/README.md), the suite runs
 * the compiled script in a child process and reads the JSON it wrote. A quick run puts the
 * previous file back afterwards, so CI and local quick runs never overwrite committed full
 * results.
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Progress } from "../harness/progress.js";
import { runScript } from "../harness/script.js";

export interface ForeignRun<T> {
  /** The command that produced the figures, relative to the repository root. */
  command: string;
  ms: number;
  result: T;
}

export async function runForeignBench<T>(options: {
  root: string;
  /** Compiled entry, relative to the root (e.g. dist/bench/search/main.js). */
  script: string;
  args: string[];
  /** The JSON it writes, relative to the root. */
  output: string;
  /** Put the previous output file back afterwards (quick runs). */
  restore: boolean;
  timeoutMs: number;
  log: Progress;
}): Promise<ForeignRun<T>> {
  const script = path.join(options.root, options.script);
  if (!existsSync(script)) throw new Error(`${options.script} not found (run \`npm run build\`)`);
  const output = path.join(options.root, options.output);
  const previous = existsSync(output) ? readFileSync(output) : undefined;
  const started = Date.now();
  try {
    const run = await runScript(script, options.args, options.log, { cwd: options.root, timeoutMs: options.timeoutMs });
    if (!existsSync(output) || statSync(output).mtimeMs < started - 1000) throw new Error(`${options.script} did not write ${options.output}`);
    const result = JSON.parse(readFileSync(output, "utf8")) as T;
    return { command: `node ${[options.script, ...options.args].join(" ")}`, ms: Math.round(run.ms), result };
  } finally {
    if (options.restore) {
      if (previous !== undefined) writeFileSync(output, previous);
      else rmSync(output, { force: true });
    }
  }
}
