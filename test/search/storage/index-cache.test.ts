import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveOptions } from "../../../src/engine/options.js";
import { ToolIndexCache, fingerprintDocs, resolveBackend } from "../../../src/search/storage/index-cache.js";
import { bm25fBackend } from "../../../src/search/backends/bm25f-backend.js";
import { minisearchBackend } from "../../../src/search/backends/minisearch-backend.js";
import type { SearchBackend, SearchBackendFactory, SearchDoc } from "../../../src/search/types.js";
import { CATALOG, doc, widgets } from "../../contract/backend-contract.js";

const caches: ToolIndexCache[] = [];
function cache(options?: ConstructorParameters<typeof ToolIndexCache>[0]): ToolIndexCache {
  const c = new ToolIndexCache(options);
  caches.push(c);
  return c;
}
afterEach(async () => {
  for (const c of caches.splice(0)) await c.close();
});

/** Whether a backend still answers (a closed one throws INDEX_CLOSED). */
function isOpen(backend: SearchBackend): boolean {
  try {
    backend.search("xylophone", { limit: 1 });
    return true;
  } catch {
    return false;
  }
}

describe("fingerprintDocs", () => {
  it("ignores order and sees any change of content", () => {
    const a = fingerprintDocs(CATALOG);
    expect(fingerprintDocs([...CATALOG].reverse())).toBe(a);
    expect(fingerprintDocs(CATALOG.map((d) => ({ ...d })))).toBe(a);
    const changed = CATALOG.map((d, i) => (i === 3 ? { ...d, description: `${d.description}!` } : d));
    expect(fingerprintDocs(changed)).not.toBe(a);
    const param = CATALOG.map((d, i) => (i === 0 ? { ...d, params: [{ name: "town", description: "City name" }] } : d));
    expect(fingerprintDocs(param)).not.toBe(a);
    expect(fingerprintDocs(CATALOG.slice(1))).not.toBe(a);
  });
});

describe("resolveBackend", () => {
  it("maps names to the built-in factories and passes factories through", () => {
    expect(resolveBackend(undefined)).toBe(bm25fBackend);
    expect(resolveBackend("bm25f")).toBe(bm25fBackend);
    expect(resolveBackend("minisearch")).toBe(minisearchBackend);
    const custom: SearchBackendFactory = { kind: "mine", create: () => minisearchBackend.create() };
    expect(resolveBackend(custom)).toBe(custom);
  });
  it("leaves the checking to createToolSearch's options: anything else is CONFIG_INVALID naming the value there", () => {
    expect(() => resolveOptions({ backend: "tantivy" as "bm25f" })).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringContaining('"tantivy"') }),
    );
    expect(() => resolveOptions({ backend: 42 as unknown as "bm25f" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => resolveOptions({ backend: { kind: "x" } as unknown as "bm25f" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(resolveOptions({ backend: { kind: "mine", create: () => minisearchBackend.create() } }).backend).toMatchObject({ kind: "mine" });
  });
});

describe("ToolIndexCache", () => {
  it("reuses the index for the same catalog and backend, whatever the order of docs", async () => {
    const c = cache();
    const first = await c.get(CATALOG, "bm25f");
    expect(c.lastBuild?.via).toBe("thread");
    const again = await c.get([...CATALOG].reverse(), "bm25f");
    expect(again).toBe(first);
    expect(c.lastBuild?.via).toBe("cache");
    const other = await c.get(CATALOG, "minisearch");
    expect(other).not.toBe(first);
    expect(other.kind).toBe("minisearch");
  });

  it("filters per run with allowed instead of re-indexing", async () => {
    const c = cache();
    const index = await c.get(CATALOG, "bm25f");
    const hits = index.search("issue", { limit: 5, allowed: new Set(["mcp:gitlab:create_issue"]) });
    expect(hits.map((h) => h.id)).toEqual(["mcp:gitlab:create_issue"]);
    expect(await c.get(CATALOG, "bm25f")).toBe(index);
  });

  it("shares one build between concurrent calls", async () => {
    const c = cache();
    const [a, b] = await Promise.all([c.get(CATALOG, "bm25f"), c.get(CATALOG, "bm25f")]);
    expect(a).toBe(b);
  });

  it("evicts the least recently used index, which keeps serving whoever still holds it until close()", async () => {
    const c = cache({ maxEntries: 2 });
    const a = await c.get([doc("core:a", "alpha")], "bm25f");
    const { index: b } = await c.acquire([doc("core:b", "beta")], "bm25f");
    await c.get([doc("core:a", "alpha")], "bm25f"); // a is now the most recent
    await c.get([doc("core:c", "gamma")], "bm25f");
    expect(c.size).toBe(2);
    expect(c.lastBuild?.via).toBe("thread");
    // A run prepared with b before the eviction can still search it.
    expect(b.closed).toBe(false);
    expect(b.search("beta", { limit: 1 }).map((h) => h.id)).toEqual(["core:b"]);
    // The cache no longer has it: asking again builds a new index.
    const b2 = await c.get([doc("core:b", "beta")], "bm25f");
    expect(b2).not.toBe(b);
    await c.close();
    expect(b.closed).toBe(true);
    expect(a.closed).toBe(true);
    expect(() => b.search("beta", { limit: 1 })).toThrow(expect.objectContaining({ code: "INDEX_CLOSED" }));
  });

  it("closes an evicted index's database when its last holder releases it; an unheld one at eviction", async () => {
    const c = cache({ maxEntries: 1 });
    const x = [doc("core:x", "xylophone")];
    const first = await c.acquire(x, "bm25f");
    const second = await c.acquire(x, "bm25f");
    expect(second.index).toBe(first.index);
    const backend = first.index.backend;
    const unheld = await c.get([doc("core:y", "yodel")], "bm25f");
    expect(isOpen(backend)).toBe(true); // evicted, still held twice
    first.release();
    first.release(); // idempotent: one holder left
    expect(isOpen(backend)).toBe(true);
    second.release();
    expect(isOpen(backend)).toBe(false);
    expect(first.index.closed).toBe(true);
    await c.get([doc("core:z", "zither")], "bm25f");
    expect(unheld.closed).toBe(true);
    // Releasing the cached index closes nothing: the cache still holds it.
    const current = await c.acquire([doc("core:z", "zither")], "bm25f");
    current.release();
    expect(current.index.closed).toBe(false);
  });

  it("tells custom factories apart even with the same kind", async () => {
    const c = cache();
    const one: SearchBackendFactory = { kind: "same", create: () => minisearchBackend.create() };
    const two: SearchBackendFactory = { kind: "same", create: () => bm25fBackend.create() };
    expect(await c.get(CATALOG, one)).not.toBe(await c.get(CATALOG, two));
  });

  it("close() closes every index and refuses further use", async () => {
    const c = cache();
    const index = await c.get(CATALOG, "bm25f");
    await c.close();
    expect(index.closed).toBe(true);
    await expect(c.get(CATALOG, "bm25f")).rejects.toMatchObject({ code: "INDEX_CLOSED" });
  });

  it("does not cache a failed build", async () => {
    const c = cache();
    let calls = 0;
    const flaky: SearchBackendFactory = {
      kind: "flaky",
      create: () => (++calls === 1 ? Promise.reject(new Error("boom")) : minisearchBackend.create()),
    };
    await expect(c.get(CATALOG, flaky)).rejects.toThrow("boom");
    expect((await c.get(CATALOG, flaky)).size).toBe(CATALOG.length);
  });

  it("builds big catalogs in a worker thread and answers like an in-thread build", async () => {
    const docs: SearchDoc[] = [...CATALOG, ...widgets(300)];
    const c = cache();
    const viaWorker = await c.get(docs, "bm25f", { workerThreshold: 100 });
    // npm test builds dist/ first, so the worker file is there (the fallback without it is tested below).
    expect(c.lastBuild?.via, c.lastBuild?.reason).toBe("worker");
    const inThread = await cache().get(docs, "bm25f", { workerThreshold: Number.POSITIVE_INFINITY });
    for (const q of ["weather", "widget 17", "github issue"]) {
      expect(viaWorker.search(q, { limit: 5 })).toEqual(inThread.search(q, { limit: 5 }));
    }
  });

  it("ends the worker thread as soon as its build is done, so its heap is not held idle", async () => {
    const docs: SearchDoc[] = [...CATALOG, ...widgets(300)];
    const c = cache();
    await c.get(docs, "bm25f", { workerThreshold: 100 });
    // npm test builds dist/ first, so the worker file is there.
    expect(c.lastBuild?.via).toBe("worker");
    expect(c.workerThreads).toBe(0);
    // The next big build starts a thread again, and ends it too.
    await c.get(widgets(400), "bm25f", { workerThreshold: 100 });
    expect(c.lastBuild?.via).toBe("worker");
    expect(c.workerThreads).toBe(0);
  });

  it("writes the worker's snapshot to the snapshot folder, which the next process loads", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolsearch-worker-snap-"));
    try {
      const docs: SearchDoc[] = [...CATALOG, ...widgets(300)];
      const first = cache({ snapshots: { dir } });
      const built = await first.get(docs, "bm25f", { workerThreshold: 100 });
      expect(first.lastBuild?.via).toBe("worker");
      const second = cache({ snapshots: { dir } });
      const loaded = await second.get(docs, "bm25f", { workerThreshold: 100 });
      expect(second.lastBuild?.via).toBe("snapshot");
      for (const q of ["weather", "widget 17"]) expect(loaded.search(q, { limit: 5 })).toEqual(built.search(q, { limit: 5 }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("falls back to this thread with a reason when there is no worker file or the backend is custom", async () => {
    const docs = widgets(50);
    const c = cache({ workerFile: null });
    await c.get(docs, "minisearch", { workerThreshold: 10 });
    expect(c.lastBuild).toMatchObject({ via: "thread", reason: expect.stringContaining("not found") });
    const custom: SearchBackendFactory = { kind: "mine", create: () => minisearchBackend.create() };
    const other = cache();
    await other.get(docs, custom, { workerThreshold: 10 });
    expect(other.lastBuild).toMatchObject({ via: "thread", reason: expect.stringContaining("declares no worker kind") });
  });

  it("builds any backend that declares a worker kind (and load) in the worker, whatever its identity", async () => {
    const docs = widgets(50);
    const c = cache();
    const loaded: number[] = [];
    const declared: SearchBackendFactory = {
      kind: "declared",
      create: () => minisearchBackend.create(),
      load: (snapshot) => (loaded.push(snapshot.byteLength), minisearchBackend.load!(snapshot)),
      worker: "minisearch",
    };
    const index = await c.get(docs, declared, { workerThreshold: 10 });
    expect(c.lastBuild).toMatchObject({ via: "worker", kind: "declared" });
    expect(loaded).toHaveLength(1);
    expect(index.search("widget 7", { limit: 1 })).toHaveLength(1);
  });
});
