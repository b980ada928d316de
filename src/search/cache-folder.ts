/**
 * What the snapshot folder (snapshot-store.ts) trusts about the file system, and nothing more:
 * - the folder itself only when no one else can write in it: owned by this user (or root) and
 *   not group- or world-writable, unless sticky (like /tmp: others may add files but not replace
 *   ours). A folder that fails is not used at all: the index is built in memory.
 * - a file in it only when it is a regular file (not a link) owned by this user, so that in a
 *   sticky folder another user's planted file is never read as ours.
 * - a lock only while its holder lives: the lock names its holder (pid, the process's start
 *   time, host and boot), so that a lock whose process is gone, or whose pid now belongs to
 *   another process, is broken at once instead of being waited on.
 * On Windows (no uids, no POSIX modes) the ownership and mode rules do not apply.
 */
import { readFile } from "node:fs/promises";
import type { Stats } from "node:fs";
import { hostname } from "node:os";

const uid = (): number | undefined => (typeof process.getuid === "function" ? process.getuid() : undefined);

/** Why others could write this folder (so that nothing in it can be trusted), or undefined. */
export function folderDistrust(dir: string, info: Stats): string | undefined {
  if (!info.isDirectory()) return `${dir} is not a folder`;
  const me = uid();
  if (me === undefined) return undefined;
  if (info.uid !== me && info.uid !== 0) return `${dir} is owned by uid ${info.uid}, not this process's uid ${me}`;
  const sticky = (info.mode & 0o1000) !== 0;
  if ((info.mode & 0o022) !== 0 && !sticky) return `${dir} is writable by others (mode ${(info.mode & 0o7777).toString(8).padStart(4, "0")}, no sticky bit)`;
  return undefined;
}

/** Why a file in the folder is not ours to read, or undefined (checked on the open handle's stat). */
export function fileDistrust(info: Stats): string | undefined {
  if (!info.isFile()) return "not a regular file";
  const me = uid();
  if (me !== undefined && info.uid !== me) return `owned by uid ${info.uid}, not ${me}`;
  return undefined;
}

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
    return { pid: process.pid, host: hostname(), ...(boot !== undefined ? { boot } : {}), ...(start !== undefined ? { start } : {}) };
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
 * when it runs, "unknown" when this host cannot tell (another host's lock).
 */
export async function holderState(holder: LockHolder): Promise<{ state: "alive" | "gone" | "unknown"; why: string }> {
  const me = await thisHolder();
  // A bare-pid lock (older toolsearch) names no host: taken to be this one's, as it was then.
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
  return { state: "alive", why: `held by pid ${holder.pid}` };
}
