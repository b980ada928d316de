/** What a figure was measured on: without this, a number in a results file means little. */
import os from "node:os";
import { readFileSync } from "node:fs";

export interface MachineInfo {
  cpuModel: string;
  /** Logical CPUs Node sees (os.availableParallelism). */
  cores: number;
  memoryGiB: number;
  platform: string;
  arch: string;
  osRelease: string;
  node: string;
  v8: string;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() || "unknown",
    cores: typeof os.availableParallelism === "function" ? os.availableParallelism() : cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    platform: process.platform,
    arch: process.arch,
    osRelease: os.release(),
    node: process.version,
    v8: process.versions.v8,
  };
}

/** The package version, for the results file. */
export function packageVersion(root: string): string {
  try {
    return (JSON.parse(readFileSync(`${root}/package.json`, "utf8")) as { version?: string }).version ?? "unknown";
  } catch {
    return "unknown";
  }
}
