/**
 * Who holds a lock (file-lock.ts), and whether that process still runs: the lock names its
 * holder (pid, the process's start time, host and boot), so that a lock whose process is gone,
 * or whose pid now belongs to another process, is broken at once instead of being waited on.
 */
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { definedProps } from "../defined.js";

/** Who holds a lock: enough to tell, on this host, whether that process still runs. */
export interface LockHolder {
  pid: number;
  host: string;
  /** Linux: /proc/sys/kernel/random/boot_id (a pid of another boot is no one). */
  boot?: string;
  /** Linux: the process's start time, in clock ticks since boot (field 22 of /proc/<pid>/stat). */
  start?: string;
}

let self: Promise<LockHolder> | undefined;

/** This process as a lock holder. */
export function thisHolder(): Promise<LockHolder> {
  self ??= (async () => {
    const [boot, start] = await Promise.all([bootId(), startTime(process.pid)]);
    return { pid: process.pid, host: hostname(), ...definedProps({ boot, start }) };
  })();
  return self;
}

async function bootId(): Promise<string | undefined> {
  if (process.platform !== "linux") return undefined;
  return readFile("/proc/sys/kernel/random/boot_id", "utf8").then(
    (s) => s.trim() || undefined,
    () => undefined,
  );
}

/** Field 22 of /proc/<pid>/stat; the command name (field 2) may hold spaces and parentheses, so fields are counted after its last ")". */
async function startTime(pid: number): Promise<string | undefined> {
  return (await procStat(pid))?.start;
}

/** Linux: a process's state letter (field 3) and start time (field 22) from /proc/<pid>/stat. */
async function procStat(pid: number): Promise<{ state: string; start: string } | undefined> {
  if (process.platform !== "linux") return undefined;
  const text = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state), so field 22 is fields[19].
  const [state, start] = [fields[0], fields[19]];
  return state !== undefined && start !== undefined ? { state, start } : undefined;
}

/** A lock file's text as its holder, or undefined when it names none (torn, foreign, garbage). */
export function parseHolder(text: string): LockHolder | undefined {
  // An older toolsearch wrote the bare pid.
  if (/^\d+$/.test(text.trim())) return { pid: Number(text.trim()), host: "" };
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (typeof v !== "object" || v === null || !Number.isSafeInteger(v.pid) || (v.pid as number) <= 0 || typeof v.host !== "string") return undefined;
    return {
      pid: v.pid as number,
      host: v.host,
      ...(typeof v.boot === "string" ? { boot: v.boot } : {}),
      ...(typeof v.start === "string" ? { start: v.start } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * Whether a lock's holder still runs: "gone" when it provably does not (no such pid on this
 * host, another boot, or the pid now belongs to a process started at another time), "alive"
 * when it runs, "unknown" when this host cannot tell: another host's lock, or a bare-pid lock
 * (an older toolsearch's) whose pid runs — with no start time, that pid may be any process now,
 * so the lock is not trusted to be live forever (file-lock.ts breaks it once it is old).
 */
export async function holderState(holder: LockHolder): Promise<{ state: "alive" | "gone" | "unknown"; why: string }> {
  const me = await thisHolder();
  if (holder.host !== "" && holder.host !== me.host) return { state: "unknown", why: `held by pid ${holder.pid} on host ${holder.host}` };
  if (holder.boot !== undefined && me.boot !== undefined && holder.boot !== me.boot)
    return { state: "gone", why: `pid ${holder.pid} ran before this host's last boot` };
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: the process exists and belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return { state: "gone", why: `pid ${holder.pid} is not running` };
  }
  const now = await procStat(holder.pid);
  // A zombie has exited: only its parent's wait() is missing.
  if (now?.state === "Z") return { state: "gone", why: `pid ${holder.pid} has exited` };
  if (holder.start !== undefined && now !== undefined && now.start !== holder.start) {
    return { state: "gone", why: `pid ${holder.pid} now belongs to another process (started at tick ${now.start}, not ${holder.start})` };
  }
  if (holder.host === "" && holder.start === undefined) return { state: "unknown", why: `a bare-pid lock naming pid ${holder.pid}, which runs` };
  return { state: "alive", why: `held by pid ${holder.pid}` };
}

/** The same process (a pid alone is not: it is reused). */
export function sameHolder(a: LockHolder, b: LockHolder): boolean {
  return a.pid === b.pid && a.host === b.host && a.start === b.start;
}
