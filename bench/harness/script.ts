/** Runs another benchmark's command-line entry as a child process, its output streamed as progress. */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Progress } from "./progress.js";

export interface ScriptRun {
  ms: number;
  /** Everything it printed on stdout, for the record. */
  stdout: string;
}

export function runScript(file: string, args: readonly string[], log: Progress, options: { cwd: string; timeoutMs: number }): Promise<ScriptRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    const out: string[] = [];
    const tail: string[] = [];
    createInterface({ input: child.stdout }).on("line", (line) => {
      out.push(line);
      if (line.trim() !== "") log(line);
    });
    createInterface({ input: child.stderr }).on("line", (line) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      if (line.trim() !== "") log(line);
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${file} ${args.join(" ")}: still running after ${options.timeoutMs} ms; killed`));
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ ms: performance.now() - started, stdout: out.join("\n") });
      else reject(new Error(`${file} ${args.join(" ")} exited with ${signal ?? `code ${code}`}${tail.length ? `:\n${tail.join("\n")}` : ""}`));
    });
  });
}
