/** The one lock every kept file uses: stale locks are broken by rule, live ones waited on, and nothing is given up silently. */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireLock } from "../../src/state/file-lock.js";
import { thisHolder } from "../../src/state/lock-holder.js";
import { writeFileAtomic, writeFileAtomicSync } from "../../src/state/atomic-write.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function lockFile(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-lock-"));
  dirs.push(dir);
  return path.join(dir, "thing.lock");
}
const age = (file: string, ms: number) => {
  const then = new Date(Date.now() - ms);
  utimesSync(file, then, then);
};
/** A pid that ran and is gone. */
function deadPid(): number {
  for (let pid = 4_000_000; ; pid--) {
    try {
      process.kill(pid, 0);
    } catch {
      return pid;
    }
  }
}

describe("acquireLock", () => {
  it("takes a free lock with its holder in it, and only its holder's release removes it", async () => {
    const file = lockFile();
    const lock = await acquireLock(file, { waitMs: 0, staleMs: 60_000, warn: () => {} });
    expect(lock.taken).toBe(true);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ pid: process.pid, host: hostname() });
    // Broken and taken by another meanwhile: releasing must not remove the other's lock.
    writeFileSync(file, JSON.stringify({ pid: process.ppid, host: hostname() }));
    if (lock.taken) await lock.release();
    expect(existsSync(file)).toBe(true);
  });

  it("breaks at once a lock whose holder is gone, and says so", async () => {
    const file = lockFile();
    writeFileSync(file, JSON.stringify({ ...(await thisHolder()), pid: deadPid() }));
    const warnings: string[] = [];
    const lock = await acquireLock(file, { waitMs: 0, staleMs: 3_600_000, warn: (m) => warnings.push(m) });
    expect(lock.taken).toBe(true);
    expect(warnings).toEqual([expect.stringMatching(/broken: pid \d+ is not running/)]);
  });

  it("never breaks another host's fresh lock, even after waiting; says it gave up", async () => {
    const file = lockFile();
    writeFileSync(file, JSON.stringify({ pid: 1, host: `not-${hostname()}` }));
    age(file, 5_000);
    const warnings: string[] = [];
    const lock = await acquireLock(file, { waitMs: 50, staleMs: 60_000, warn: (m) => warnings.push(m) });
    expect(lock).toMatchObject({ taken: false, why: "held" });
    expect(warnings).toEqual([expect.stringMatching(/not taken: held by pid 1 on host not-/)]);
    expect(JSON.parse(readFileSync(file, "utf8")).host).toBe(`not-${hostname()}`);
  });

  it("breaks another host's lock once older than staleMs", async () => {
    const file = lockFile();
    writeFileSync(file, JSON.stringify({ pid: 1, host: `not-${hostname()}` }));
    age(file, 120_000);
    const warnings: string[] = [];
    expect((await acquireLock(file, { waitMs: 0, staleMs: 60_000, warn: (m) => warnings.push(m) })).taken).toBe(true);
    expect(warnings).toEqual([expect.stringMatching(/broken: held by pid 1 on host not-.*over 60000 ms/)]);
  });

  it("a bare-pid lock (an older toolsearch's) of a live pid is not trusted forever: broken once stale", async () => {
    const file = lockFile();
    // pid 1 always runs: before, such a lock was taken as live for good and writes stopped silently.
    writeFileSync(file, "1");
    const fresh = await acquireLock(file, { waitMs: 0, staleMs: 60_000, warn: () => {} });
    expect(fresh.taken).toBe(false);
    age(file, 120_000);
    const warnings: string[] = [];
    expect((await acquireLock(file, { waitMs: 0, staleMs: 60_000, warn: (m) => warnings.push(m) })).taken).toBe(true);
    expect(warnings).toEqual([expect.stringMatching(/bare-pid lock naming pid 1/)]);
  });

  it("a lock that names no holder is broken once 2 s old; one that is not ours is never broken", async () => {
    const file = lockFile();
    writeFileSync(file, "garbage");
    age(file, 10_000);
    expect((await acquireLock(file, { waitMs: 0, staleMs: 60_000, warn: () => {} })).taken).toBe(true);
    rmSync(file);
    writeFileSync(`${file}.target`, "x");
    symlinkSync(`${file}.target`, file);
    const warnings: string[] = [];
    expect(await acquireLock(file, { waitMs: 1_000, staleMs: 0, warn: (m) => warnings.push(m) })).toMatchObject({ taken: false, why: "foreign" });
    expect(warnings).toEqual([expect.stringMatching(/not taken: unreadable \(ELOOP\)/)]);
  });

  it("stops waiting when asked (the holder's file appeared)", async () => {
    const file = lockFile();
    writeFileSync(file, JSON.stringify({ ...(await thisHolder()), pid: process.ppid, start: undefined }));
    const lock = await acquireLock(file, { waitMs: 3_600_000, staleMs: 3_600_000, warn: () => {}, stopWaiting: async () => true });
    expect(lock).toMatchObject({ taken: false, why: "stopped" });
  });
});

describe("writeFileAtomic", () => {
  it("replaces a file whole, mode 0600, and leaves no temp file behind, also when the write fails", async () => {
    const file = lockFile().replace(/\.lock$/, ".bin");
    await writeFileAtomic(file, [Buffer.from("ab"), Buffer.from("cd")]);
    writeFileAtomicSync(`${file}.2`, "text");
    expect(readFileSync(file, "utf8")).toBe("abcd");
    expect(readFileSync(`${file}.2`, "utf8")).toBe("text");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // A folder where the file should go: the rename fails, the temp file goes.
    mkdirSync(`${file}.dir`);
    writeFileSync(path.join(`${file}.dir`, "x"), "");
    await expect(writeFileAtomic(`${file}.dir`, Buffer.from("z"))).rejects.toThrow();
    expect(readdirSync(path.dirname(file)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });
});
