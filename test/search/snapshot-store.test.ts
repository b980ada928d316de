import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ToolIndexCache } from "../../src/search/index-cache.js";
import { SnapshotStore } from "../../src/search/snapshot-store.js";
import { fingerprintDocs } from "../../src/search/fingerprint.js";
import { CATALOG } from "../contract/backend-contract.js";

const dirs: string[] = [];
const caches: ToolIndexCache[] = [];
function folder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-snap-"));
  dirs.push(dir);
  return dir;
}
function cache(dir: string): ToolIndexCache {
  const c = new ToolIndexCache({ snapshots: { dir } });
  caches.push(c);
  return c;
}
afterEach(async () => {
  for (const c of caches.splice(0)) await c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const snapshotFile = (dir: string): string => path.join(dir, readdirSync(dir).find((f) => f.endsWith(".tsidx"))!);
const ids = (c: ToolIndexCache, q: string) => c.get(CATALOG, "fts5").then((i) => i.search(q, { limit: 5 }).map((h) => h.id));

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
    ["a flipped payload byte", (b: Buffer) => (b[b.length - 100] ^= 0xff), /checksum mismatch/],
    ["a truncated file", (b: Buffer) => b.subarray(0, b.length - 10), /payload bytes|checksum/],
    ["garbage", () => Buffer.from("not a snapshot at all"), /not a toolsearch index snapshot/],
    ["another analyzer", (b: Buffer) => Buffer.from(b.toString("latin1").replace(/"signature":"[0-9a-f]+"/, '"signature":"0000000000000000"'), "latin1"), /another analyzer/],
    ["another format", (b: Buffer) => Buffer.from(b.toString("latin1").replace('"format":1', '"format":9'), "latin1"), /format 9/],
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
    expect(await store.write("fts5", fp, 1, new Uint8Array(2_048))).toMatchObject({ ok: false });
    writeFileSync(store.file("fts5", fp), Buffer.alloc(100_000));
    expect(await store.read("fts5", fp)).toMatchObject({ ok: false, reason: expect.stringMatching(/cap/) });
    expect(readdirSync(dir)).toEqual([]);
  });

  it("keeps only the `keep` newest snapshots", async () => {
    const dir = folder();
    const store = new SnapshotStore({ dir, keep: 2 });
    for (const fp of ["a", "b", "c", "d"]) {
      expect(await store.write("fts5", fp, 1, new Uint8Array([1, 2, 3]))).toEqual({ ok: true });
      await new Promise((r) => setTimeout(r, 15));
    }
    expect(readdirSync(dir).sort()).toEqual(["fts5-c.tsidx", "fts5-d.tsidx"]);
    expect(await store.read("fts5", "d")).toMatchObject({ ok: true, docs: 1 });
    expect(await store.read("fts5", "c").then((r) => r.ok && [...r.payload])).toEqual([1, 2, 3]);
  });

  it("validates its options", () => {
    expect(() => new SnapshotStore({ dir: folder(), keep: 0 })).toThrow(/CONFIG_INVALID|keep/);
  });
});
