/** Starts the built CLI as real processes (gateway, scripted provider) and stops them. */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CLI = path.join(ROOT, "dist/src/cli/main.js");

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

/** Spawns `toolsearch <args>` and resolves once it prints "listening <url>". */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`toolsearch ${args.join(" ")} did not start in time:\n${stderr}`)), 60_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`toolsearch ${args.join(" ")} exited with ${code}:\n${stderr}`));
    });
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening (\S+)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      resolve({ url: match[1]!, child, stderr: () => stderr, stop: () => stop(child) });
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

export function writeJson(file: string, value: unknown): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}
