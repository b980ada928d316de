import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ToolIndexCache } from "../../../src/search/storage/index-cache.js";
import { SnapshotStore, type IndexSnapshotOptions } from "../../../src/search/storage/snapshot-store.js";
import { printable } from "../../../src/text/printable.js";
import { thisHolder } from "../../../src/state/lock-holder.js";
import { fingerprintDocs } from "../../../src/search/storage/fingerprint.js";
import { CATALOG } from "../../contract/backend-contract.js";

const dirs: string[] = [];
const caches: ToolIndexCache[] = [];
function folder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-snap-"));
  dirs.push(dir);
  return dir;
}
/** A cache on `dir`; its warnings go to `warnings` (none printed). */
function cache(dir: string, options: Omit<IndexSnapshotOptions, "dir"> = {}, warnings: string[] = []): ToolIndexCache {
  const c = new ToolIndexCache({ snapshots: { dir, ...options }, onWarning: (m) => warnings.push(m) });
  caches.push(c);
  return c;
}
afterEach(async () => {
  for (const c of caches.splice(0)) await c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const META = { docs: 1, docsDigest: "d" };
const snapshotFile = (dir: string): string =>
  path.join(
    dir,
    readdirSync(dir).find((f) => f.endsWith(".tsidx"))!,
  );
const ids = (c: ToolIndexCache, q: string) => c.get(CATALOG, "bm25f").then((i) => i.search(q, { limit: 5 }).map((h) => h.id));

describe("index snapshots", () => {
  it("round-trip: a second cache loads the first one's snapshot and answers the same", async () => {
    const dir = folder();
    const first = cache(dir);
    const expected = await ids(first, "weather forecast for a city");
    expect(first.lastBuild?.via).toBe("thread");
    expect(readdirSync(dir).filter((f) => f.endsWith(".tsidx"))).toHaveLength(1);
    const second = cache(dir);
    expect(await ids(second, "weather forecast for a city")).toEqual(expected);
    expect(second.lastBuild?.via).toBe("snapshot");
  });

  it.each([
    [
      "a flipped payload byte",
      (b: Buffer): void => {
        const at = b.length - 100;
        b.writeUInt8(b.readUInt8(at) ^ 0xff, at);
      },
      /checksum mismatch/,
    ],
    ["a truncated file", (b: Buffer) => b.subarray(0, b.length - 10), /payload bytes|checksum/],
    ["garbage", () => Buffer.from("not a snapshot at all"), /not a toolsearch index snapshot/],
    [
      "another analyzer",
      (b: Buffer) => Buffer.from(b.toString("latin1").replace(/"signature":"[0-9a-f]+"/, '"signature":"0000000000000000"'), "latin1"),
      /another analyzer/,
    ],
    ["another format", (b: Buffer) => Buffer.from(b.toString("latin1").replace('"format":2', '"format":9'), "latin1"), /format 9/],
    ["an older format (1, no docs digest)", (b: Buffer) => Buffer.from(b.toString("latin1").replace('"format":2', '"format":1'), "latin1"), /format 1, not 2/],
  ] as const)("%s is rejected, deleted and rebuilt, never trusted", async (_name, damage, reason) => {
    const dir = folder();
    const expected = await ids(cache(dir), "send an email");
    const file = snapshotFile(dir);
    const bytes = readFileSync(file);
    const damaged = damage(bytes);
    writeFileSync(file, Buffer.isBuffer(damaged) ? damaged : bytes);
    const next = cache(dir);
    expect(await ids(next, "send an email")).toEqual(expected);
    expect(next.lastBuild?.via).toBe("thread");
    expect(next.lastBuild?.reason).toMatch(reason);
    // Rebuilt and written again: the third one loads it.
    const third = cache(dir);
    await ids(third, "send an email");
    expect(third.lastBuild?.via).toBe("snapshot");
  });

  it("a file over maxBytes is not read, and a payload over it is not written", async () => {
    const dir = folder();
    const store = new SnapshotStore({ dir, maxBytes: 1_024 });
    const fp = fingerprintDocs(CATALOG);
    expect(await store.write("bm25f", fp, META, new Uint8Array(2_048))).toMatchObject({ ok: false });
    writeFileSync(store.file("bm25f", fp), Buffer.alloc(100_000));
    expect(await store.read("bm25f", fp)).toMatchObject({ ok: false, reason: expect.stringMatching(/cap/) });
    expect(readdirSync(dir)).toEqual([]);
  });

  it("keeps only the `keep` newest snapshots", async () => {
    const dir = folder();
    const store = new SnapshotStore({ dir, keep: 2 });
    for (const fp of ["a", "b", "c", "d"]) {
      expect(await store.write("bm25f", fp, META, new Uint8Array([1, 2, 3]))).toEqual({ ok: true });
      await new Promise((r) => setTimeout(r, 15));
    }
    expect(readdirSync(dir).sort()).toEqual(["bm25f-c.tsidx", "bm25f-d.tsidx"]);
    expect(await store.read("bm25f", "d")).toMatchObject({ ok: true, docs: 1 });
    expect(await store.read("bm25f", "c").then((r) => r.ok && [...r.payload])).toEqual([1, 2, 3]);
  });

  it("reports reasons as one printable line: control characters escaped, long text clipped", () => {
    expect(printable("a\nb\u2028c\u0007")).toBe("a\\u000ab\\u2028c\\u0007");
    expect(printable("x".repeat(2_000))).toHaveLength(501);
  });

  it("validates its options", () => {
    expect(() => new SnapshotStore({ dir: folder(), keep: 0 })).toThrow(/CONFIG_INVALID|keep/);
  });
});

const KEY_A = "a".repeat(32);
const KEY_B = "b".repeat(32);

describe("snapshot keys (indexCacheKey: an HMAC-SHA256 over the whole file)", () => {
  it("a snapshot written with another key is rejected, deleted and rebuilt with this one", async () => {
    const dir = folder();
    await ids(cache(dir, { key: KEY_A }), "send an email");
    const warnings: string[] = [];
    const b = cache(dir, { key: KEY_B }, warnings);
    await ids(b, "send an email");
    expect(b.lastBuild).toMatchObject({ via: "thread", reason: expect.stringMatching(/MAC mismatch/) });
    expect(warnings).toEqual([expect.stringMatching(/deleted: MAC mismatch/)]);
    const again = cache(dir, { key: KEY_B });
    await ids(again, "send an email");
    expect(again.lastBuild?.via).toBe("snapshot");
  });

  it("with a key, a snapshot without a MAC is rejected; a changed header byte fails the MAC", async () => {
    const dir = folder();
    await ids(cache(dir), "send an email");
    const keyed = cache(dir, { key: KEY_A });
    await ids(keyed, "send an email");
    expect(keyed.lastBuild?.reason).toMatch(/no MAC/);
    // The MAC covers the header too: one more doc claimed is caught before anything else.
    const file = snapshotFile(dir);
    writeFileSync(
      file,
      Buffer.from(
        readFileSync(file)
          .toString("latin1")
          .replace(`"docs":${CATALOG.length}`, `"docs":${CATALOG.length + 1}`),
        "latin1",
      ),
    );
    const next = cache(dir, { key: KEY_A });
    await ids(next, "send an email");
    expect(next.lastBuild?.reason).toMatch(/MAC mismatch/);
  });

  it("the right key loads without re-analysis; no key still loads a keyed snapshot, checking every posting", async () => {
    const dir = folder();
    const expected = await ids(cache(dir, { key: KEY_A }), "weather forecast for a city");
    const same = cache(dir, { key: KEY_A });
    expect(await ids(same, "weather forecast for a city")).toEqual(expected);
    expect(same.lastBuild?.via).toBe("snapshot");
    const unkeyed = cache(dir);
    expect(await ids(unkeyed, "weather forecast for a city")).toEqual(expected);
    expect(unkeyed.lastBuild?.via).toBe("snapshot");
  });

  it("a key shorter than 16 characters is CONFIG_INVALID, and the message does not show it", () => {
    let thrown: unknown;
    try {
      new SnapshotStore({ dir: folder(), key: "s3cr3t-short" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: "CONFIG_INVALID" });
    const message = (thrown as Error).message;
    expect(message).toMatch(/key/);
    expect(message).not.toContain("s3cr3t-short");
  });
});

const posix = typeof process.getuid === "function";

describe.skipIf(!posix)("the cache folder (row 4)", () => {
  it("a folder writable by others (0777) is reported once and not used: indexes are built in memory", async () => {
    const dir = folder();
    chmodSync(dir, 0o777);
    const warnings: string[] = [];
    const c = cache(dir, {}, warnings);
    expect(await ids(c, "send an email")).toContain("plugin:mail:send_email");
    expect(c.lastBuild).toMatchObject({ via: "thread", reason: expect.stringMatching(/writable by others \(mode 0777/) });
    await c.get([...CATALOG].slice(1), "bm25f");
    expect(warnings).toEqual([expect.stringMatching(/index cache folder not used: .*writable by others/)]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a sticky world-writable folder (like /tmp) is used: others may add files there, not replace ours", async () => {
    const dir = folder();
    chmodSync(dir, 0o1777);
    await ids(cache(dir), "send an email");
    const next = cache(dir);
    await ids(next, "send an email");
    expect(next.lastBuild?.via).toBe("snapshot");
  });

  it("a snapshot that is a symbolic link is not followed: deleted and rebuilt", async () => {
    const dir = folder();
    await ids(cache(dir), "send an email");
    const file = snapshotFile(dir);
    const elsewhere = path.join(folder(), "real.tsidx");
    writeFileSync(elsewhere, readFileSync(file));
    rmSync(file);
    (await import("node:fs")).symlinkSync(elsewhere, file);
    const next = cache(dir);
    await ids(next, "send an email");
    expect(next.lastBuild?.reason).toMatch(/symbolic link/);
    expect(existsSync(elsewhere)).toBe(true);
  });
});

describe("build locks (row 4)", () => {
  const fp = fingerprintDocs(CATALOG);
  const lockOf = (store: SnapshotStore) => `${store.file("bm25f", fp)}.lock`;
  /** A pid that was a real process and is no more. */
  const deadPid = (): number => spawnSync(process.execPath, ["-e", ""]).pid!;

  it("a lock whose holder is gone is reported and broken at once, not waited on for lockWaitMs", async () => {
    const dir = folder();
    const warnings: string[] = [];
    const store = new SnapshotStore({ dir, lockWaitMs: 3_600_000 }, (m) => warnings.push(m));
    writeFileSync(lockOf(store), JSON.stringify({ ...(await thisHolder()), pid: deadPid() }));
    // Waiting would run past the test's timeout.
    const lock = await store.lock("bm25f", fp);
    expect(lock.build).toBe(true);
    expect(warnings).toEqual([expect.stringMatching(/broken: pid \d+ is not running/)]);
    // It is this process's lock now, and release() removes it.
    expect(JSON.parse(readFileSync(lockOf(store), "utf8"))).toMatchObject({ pid: process.pid });
    await lock.release();
    expect(existsSync(lockOf(store))).toBe(false);
  });

  it.skipIf(process.platform !== "linux")("a lock whose pid now belongs to another process (another start time) is broken", async () => {
    const dir = folder();
    const warnings: string[] = [];
    const store = new SnapshotStore({ dir, lockWaitMs: 3_600_000 }, (m) => warnings.push(m));
    writeFileSync(lockOf(store), JSON.stringify({ ...(await thisHolder()), start: "1" }));
    expect((await store.lock("bm25f", fp)).build).toBe(true);
    expect(warnings).toEqual([expect.stringMatching(/now belongs to another process/)]);
  });

  it("a lock held by a live process is waited on, until its snapshot appears", async () => {
    const dir = folder();
    const warnings: string[] = [];
    const store = new SnapshotStore({ dir, lockWaitMs: 3_600_000 }, (m) => warnings.push(m));
    const held = JSON.stringify({ ...(await thisHolder()), pid: process.ppid, start: undefined });
    writeFileSync(lockOf(store), held);
    const waiting = store.lock("bm25f", fp);
    // The holder finishes: its snapshot appears, and the waiter uses it instead of building.
    await new SnapshotStore({ dir }, () => {}).write("bm25f", fp, META, new Uint8Array([1, 2, 3]));
    const lock = await waiting;
    expect(lock.build).toBe(false);
    await lock.release();
    expect(readFileSync(lockOf(store), "utf8")).toBe(held);
    expect(warnings).toEqual([]);
  });

  it("a live holder's lock is waited on for lockWaitMs at most, and then left alone", async () => {
    const dir = folder();
    const store = new SnapshotStore({ dir, lockWaitMs: 200 }, () => {});
    const held = JSON.stringify({ ...(await thisHolder()), pid: process.ppid, start: undefined });
    writeFileSync(lockOf(store), held);
    const lock = await store.lock("bm25f", fp);
    expect(lock.build).toBe(true);
    await lock.release();
    expect(readFileSync(lockOf(store), "utf8")).toBe(held);
  });

  it("another host's lock is broken once older than lockWaitMs; a lock that names no holder once 2 s old", async () => {
    const dir = folder();
    const warnings: string[] = [];
    const store = new SnapshotStore({ dir, lockWaitMs: 60_000 }, (m) => warnings.push(m));
    const old = new Date(Date.now() - 120_000);
    writeFileSync(lockOf(store), JSON.stringify({ pid: 1, host: `not-${hostname()}` }));
    utimesSync(lockOf(store), old, old);
    await (await store.lock("bm25f", fp)).release();
    writeFileSync(lockOf(store), "garbage");
    utimesSync(lockOf(store), old, old);
    await (await store.lock("bm25f", fp)).release();
    expect(warnings).toEqual([expect.stringMatching(/on host not-.*over 60000 ms/), expect.stringMatching(/names no holder/)]);
  });

  it("through the cache: a dead builder's lock does not hold up the next start", async () => {
    const dir = folder();
    const store = new SnapshotStore({ dir }, () => {});
    writeFileSync(lockOf(store), JSON.stringify({ ...(await thisHolder()), pid: deadPid() }));
    const warnings: string[] = [];
    const c = cache(dir, { lockWaitMs: 3_600_000 }, warnings);
    await ids(c, "send an email");
    expect(c.lastBuild?.via).toBe("thread");
    expect(warnings).toEqual([expect.stringMatching(/lock .* broken/)]);
    expect(existsSync(lockOf(store))).toBe(false);
  });
});
