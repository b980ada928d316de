/** A results file around one suite's result, for report and summary tests. */
import type { BenchResults } from "../../bench/harness/results.js";

export function fakeResults(suites: BenchResults["suites"], cpuModel = "test"): BenchResults {
  return {
    schema: 1,
    name: "test",
    quick: true,
    command: "vitest",
    date: new Date().toISOString(),
    durationMs: 1,
    toolsearch: { version: "0.0.0" },
    machine: { cpuModel, cores: 2, memoryGiB: 1, platform: "linux", arch: "x64", osRelease: "", node: process.version, v8: "" },
    load: { before: 0, after: 0 },
    suites,
  };
}
