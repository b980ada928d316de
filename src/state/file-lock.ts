/**
 * The one lock for every file the engine keeps (index snapshots, the learned journal): a lock
 * file beside it that names its holder (lock-holder.ts), created whole (a temp file hard-linked
 * to the lock's name, so no reader ever sees an empty lock), and released only by its holder.
 *
 * A held lock is waited on, up to `waitMs`, unless it is provably stale:
 * - its holder is gone (no such pid on this host, another boot, the pid reused): broken at once;
 * - it names no holder (torn, garbage) and is older than UNNAMED_LOCK_MS: broken;
 * - its holder cannot be checked from here (another host's lock, a bare-pid lock whose pid
 *   runs): broken only once it is older than `staleMs` — a live writer on another host keeps
 *   its lock for milliseconds, so one that old is a crashed writer's;
 * - it is not a regular file of this user's: never broken, never waited on ("foreign").
 * Every break and every give-up is reported through `warn`: a lock never stops a writer silently.
 */
import { randomBytes } from "node:crypto";
import { link, open, readFile, unlink, writeFile, type FileHandle } from "node:fs/promises";
import { errnoCode, fileDistrust, READ_FLAGS } from "./folder-trust.js";
import { holderState, parseHolder, sameHolder, thisHolder, type LockHolder } from "./lock-holder.js";

/** A lock that names no holder and is older than this is torn or planted (a writer fills its lock at once). */
const UNNAMED_LOCK_MS = 2_000;
const POLL_MS = 20;

export interface FileLockOptions {
  /** How long a held lock is waited on before giving up, ms (0: one try). */
  waitMs: number;
  /** A lock whose holder cannot be checked from this host is broken once older than this, ms. */
  staleMs: number;
  /** What is broken or given up, for the operator. */
  warn: (message: string) => void;
  /** Whether giving up on a live holder is reported (default true; false where another's hold is expected, e.g. a second compaction). */
  reportHeld?: boolean;
  /** Stops waiting early when it resolves true (e.g. the file the holder was writing appeared). */
  stopWaiting?: () => Promise<boolean>;
}

/** What acquireLock gives: the release, or why the lock was not taken. */
export type LockResult = { taken: true; release: () => Promise<void> } | { taken: false; why: "held" | "foreign" | "failed" | "stopped"; detail: string };

/** Takes `lockFile`, waiting and breaking stale locks as above. */
export async function acquireLock(lockFile: string, options: FileLockOptions): Promise<LockResult> {
  const me = await thisHolder();
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    const created = await createLock(lockFile, me);
    if (created === "taken") return { taken: true, release: () => releaseLock(lockFile, me) };
    if (created === "failed") return giveUp(options, lockFile, "failed", "the lock file cannot be created");
    const stale = await staleness(lockFile, options.staleMs);
    if (stale.kind === "foreign") return giveUp(options, lockFile, "foreign", stale.why);
    if (stale.kind === "stale") {
      options.warn(`lock ${lockFile} broken: ${stale.why}`);
      const removed = await unlink(lockFile).then(
        () => true,
        (error: unknown) => errnoCode(error) === "ENOENT",
      );
      if (!removed) return giveUp(options, lockFile, "failed", "a stale lock cannot be removed");
      continue;
    }
    if (options.stopWaiting !== undefined && (await options.stopWaiting())) return { taken: false, why: "stopped", detail: "" };
    if (Date.now() >= deadline) return giveUp(options, lockFile, "held", `${stale.why}, still after ${options.waitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function giveUp(options: FileLockOptions, lockFile: string, why: "held" | "foreign" | "failed", detail: string): LockResult {
  if (why !== "held" || options.reportHeld !== false) options.warn(`lock ${lockFile} not taken: ${detail}`);
  return { taken: false, why, detail };
}

/** Only our own lock is removed: had it been broken and taken by another, removing it would let a third in. */
async function releaseLock(lockFile: string, me: LockHolder): Promise<void> {
  const holder = await readFile(lockFile, "utf8").then(parseHolder, () => undefined);
  if (holder !== undefined && sameHolder(holder, me)) await unlink(lockFile).catch(() => {});
}

type Staleness = { kind: "live"; why: string } | { kind: "stale"; why: string } | { kind: "foreign"; why: string };

async function staleness(lockFile: string, staleMs: number): Promise<Staleness> {
  let handle: FileHandle;
  try {
    handle = await open(lockFile, READ_FLAGS);
  } catch (error) {
    // Gone meanwhile: the next round takes it. Anything else (a symbolic link) is no lock of ours.
    if (errnoCode(error) === "ENOENT") return { kind: "live", why: "released meanwhile" };
    return { kind: "foreign", why: `unreadable (${errnoCode(error) ?? String(error)})` };
  }
  let text: string;
  let age: number;
  try {
    const info = await handle.stat();
    const foreign = fileDistrust(info);
    if (foreign !== undefined) return { kind: "foreign", why: foreign };
    age = Date.now() - info.mtimeMs;
    // A holder is a few dozen bytes: a bigger lock names none.
    const buffer = Buffer.alloc(1_024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    text = buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
  const holder = parseHolder(text);
  if (holder === undefined) return age > UNNAMED_LOCK_MS ? { kind: "stale", why: "it names no holder" } : { kind: "live", why: "being written" };
  const { state, why } = await holderState(holder);
  if (state === "gone") return { kind: "stale", why };
  if (state === "unknown" && age > staleMs) return { kind: "stale", why: `${why}, and the lock is ${Math.round(age)} ms old (over ${staleMs} ms)` };
  return { kind: "live", why };
}

/**
 * Creates the lock with its holder already in it: written to a temp file, then hard-linked to
 * the lock's name (link fails when the name exists). Where the file system has no hard links,
 * an exclusive create then a write.
 */
async function createLock(lockFile: string, me: LockHolder): Promise<"taken" | "held" | "failed"> {
  const text = JSON.stringify(me);
  const temp = `${lockFile}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(temp, text, { flag: "wx", mode: 0o600 });
  } catch {
    return "failed";
  }
  try {
    await link(temp, lockFile);
    return "taken";
  } catch (error) {
    if (errnoCode(error) === "EEXIST") return "held";
  } finally {
    await unlink(temp).catch(() => {});
  }
  try {
    const handle = await open(lockFile, "wx", 0o600);
    await handle.writeFile(text);
    await handle.close();
    return "taken";
  } catch (error) {
    return errnoCode(error) === "EEXIST" ? "held" : "failed";
  }
}
