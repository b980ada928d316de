/**
 * Finds sandbox processes by the marker in their command line (`toolsearch-sandbox:<tag>`, see
 * child/source.ts), whatever their parent: after a kill, a process that escaped reaping would be
 * re-parented to init, so walking the parent's children would miss exactly the leaks that
 * matter. Linux only (/proc); elsewhere it returns an empty list. Zombies have an empty cmdline
 * and are not counted: they hold no resources but a pid and are not running.
 */
import { readdirSync, readFileSync } from "node:fs";
import { SOURCE_MARKER } from "../child/source.js";

export interface SandboxProcess {
  pid: number;
  /** The wrapper (unshare / prlimit) or node itself. */
  command: string;
}

export function findSandboxProcesses(tag?: string): SandboxProcess[] {
  const needle = tag === undefined ? `${SOURCE_MARKER}:` : `${SOURCE_MARKER}:${tag}*/`;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: SandboxProcess[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, "latin1");
    } catch {
      continue;
    }
    if (!cmdline.includes(needle)) continue;
    found.push({ pid: Number(entry), command: cmdline.slice(0, cmdline.indexOf("\0")) });
  }
  return found;
}
