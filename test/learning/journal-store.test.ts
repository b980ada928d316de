/**
 * The learned journal between processes: only what changed is written and only what is new is
 * read; torn writes, foreign files and forged frames are survived; a compaction loses nothing and
 * makes no reader read again what it had.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { JournalStore, JOURNAL_FILE, journalLearningStore } from "../../src/learning/journal-store.js";
import { resolveLearning } from "../../src/learning/options.js";
import type { LearnedRow } from "../../src/learning/model.js";
import type { CompactionKeep } from "../../src/learning/store.js";
import { encodeFrames, newWriterId } from "../../src/learning/journal-format.js";
import { definedProps } from "../../src/defined.js";

const learning = resolveLearning({ enabled: true }, true);
const dirs: string[] = [];
const stores: JournalStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function folder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-journal-"));
  dirs.push(dir);
  return dir;
}
function store(dir: string, extra: { key?: string; warnings?: string[]; maxBytes?: number; now?: () => number } = {}): JournalStore {
  const s = new JournalStore({
    dir,
    learning,
    ...definedProps({ key: extra.key, maxBytes: extra.maxBytes, now: extra.now }),
    warn: (m) => extra.warnings?.push(m),
  });
  stores.push(s);
  return s;
}
const NOW = Date.now();
function rows(n: number, from = 0, scope = "agent:main"): LearnedRow[] {
  return Array.from({ length: n }, (_, i) => ({
    scope,
    tool: `core:t${(from + i) % 50}`,
    term: `#w${from + i}`,
    count: 1,
    sessions: 3,
    at: NOW - 1_000,
    seen: ["aaaa", "bbbb", "cccc"],
  }));
}
/** The bytes of one whole frame, as a writer with this key appends it. */
function frameBytes(some: LearnedRow[], key?: string): Buffer {
  return Buffer.concat(encodeFrames(some, newWriterId(), key === undefined ? undefined : Buffer.from(key, "utf8")));
}
async function readAll(s: JournalStore): Promise<LearnedRow[]> {
  const out: LearnedRow[] = [];
  for await (const batch of s.read()) out.push(...batch);
  return out;
}
const KEEP_ALL: CompactionKeep = { tools: Array.from({ length: 50 }, (_, i) => `core:t${i}`), toolPrefixes: [], terms: { recordTerms: false } };

describe("journal store", () => {
  it("each process reads what the others appended, once, and never its own", async () => {
    const dir = folder();
    const [a, b] = [store(dir), store(dir)];
    expect(await a.append(rows(3))).toBe(true);
    expect(await readAll(a)).toEqual([]);
    expect((await readAll(b)).map((r) => r.term)).toEqual(["#w0", "#w1", "#w2"]);
    // Read once: an idle read finds nothing.
    expect(await readAll(b)).toEqual([]);
    await b.append(rows(2, 10));
    await a.append(rows(1, 20));
    expect((await readAll(a)).map((r) => r.term)).toEqual(["#w10", "#w11"]);
    expect((await readAll(b)).map((r) => r.term)).toEqual(["#w20"]);
    // A new process reads everything.
    expect(await readAll(store(dir))).toHaveLength(6);
  });

  it("splits a large append into frames and hands them out a frame at a time", async () => {
    const dir = folder();
    await store(dir).append(rows(7_000));
    const batches: number[] = [];
    for await (const batch of store(dir).read()) batches.push(batch.length);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(7_000);
    expect(batches.length).toBeGreaterThan(3);
    expect(Math.max(...batches)).toBeLessThanOrEqual(2_000);
  });

  it("a writer that died mid-frame: readers skip to the next whole frame, the next appender cuts the torn end", async () => {
    const dir = folder();
    const warnings: string[] = [];
    const writer = store(dir, { warnings });
    await writer.append(rows(2));
    const file = path.join(dir, JOURNAL_FILE);
    // The first half of a frame: what a crash in the middle of a write leaves.
    appendFileSync(file, frameBytes(rows(1, 99)).subarray(0, 40));
    const reader = store(dir, { warnings });
    expect(await readAll(reader)).toHaveLength(2);
    await writer.append(rows(1, 30));
    expect(warnings.some((w) => /bytes of a frame a writer did not finish were cut/.test(w))).toBe(true);
    expect((await readAll(reader)).map((r) => r.term)).toEqual(["#w30"]);
    expect(await readAll(store(dir))).toHaveLength(3);
  });

  it("garbage in the middle is skipped with a warning; the frames after it are read", async () => {
    const dir = folder();
    const warnings: string[] = [];
    const writer = store(dir);
    await writer.append(rows(1));
    appendFileSync(path.join(dir, JOURNAL_FILE), Buffer.from("not a frame at all, but it ends whole?TSE1"));
    await writer.append(rows(1, 5));
    expect((await readAll(store(dir, { warnings }))).map((r) => r.term)).toEqual(["#w0", "#w5"]);
    expect(warnings).toEqual([expect.stringMatching(/bytes that were not whole frames skipped/)]);
  });

  it("with a key, frames written without it (or with another) never rank, and the file is replaced at the next write", async () => {
    const dir = folder();
    await store(dir).append(rows(2));
    const warnings: string[] = [];
    const keyed = store(dir, { key: "k".repeat(32), warnings });
    expect(await readAll(keyed)).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/not read: no MAC \(written without indexCacheKey\), and a key is set/)]);
    await keyed.append(rows(1, 40));
    expect((await readAll(store(dir, { key: "k".repeat(32) }))).map((r) => r.term)).toEqual(["#w40"]);
    expect(await readAll(store(dir, { key: "x".repeat(32) }))).toEqual([]);
    expect(await readAll(store(dir))).toEqual([]);
  });

  it("a forged frame inside a keyed journal is skipped, the others read", async () => {
    const dir = folder();
    const key = "k".repeat(32);
    const a = store(dir, { key });
    await a.append(rows(1));
    // A frame signed with another key, appended by hand to the keyed file.
    appendFileSync(path.join(dir, JOURNAL_FILE), frameBytes(rows(1, 7), "y".repeat(32)));
    await a.append(rows(1, 9));
    const warnings: string[] = [];
    expect((await readAll(store(dir, { key, warnings }))).map((r) => r.term)).toEqual(["#w0", "#w9"]);
    expect(warnings).toEqual([expect.stringMatching(/frames without a valid MAC skipped/)]);
  });

  it("dates in the future are taken as now: nothing escapes decay", async () => {
    const dir = folder();
    const future = rows(1).map((r) => ({ ...r, at: NOW + 365 * 86_400_000 }));
    await store(dir).append(future);
    const [row] = await readAll(store(dir, { now: () => NOW }));
    expect(row!.at).toBe(NOW);
  });

  it("a link, a file over maxBytes, or a foreign file is not read; a link is replaced, never followed, at the next write", async () => {
    const dir = folder();
    const target = path.join(folder(), "elsewhere");
    writeFileSync(target, "x");
    symlinkSync(target, path.join(dir, JOURNAL_FILE));
    const warnings: string[] = [];
    const s = store(dir, { warnings });
    expect(await readAll(s)).toEqual([]);
    await s.append(rows(1));
    expect(readFileSync(target, "utf8")).toBe("x");
    expect(await readAll(store(dir))).toHaveLength(1);
    expect(warnings.some((w) => /symbolic link/.test(w))).toBe(true);
    const small: string[] = [];
    expect(await readAll(store(dir, { maxBytes: 10, warnings: small }))).toEqual([]);
    expect(small).toEqual([expect.stringMatching(/over 10/)]);
  });

  it("a compaction keeps one row per record and what keep allows; readers go on from where they were, appends meanwhile kept", async () => {
    const dir = folder();
    const [writer, reader] = [store(dir), store(dir)];
    await writer.append(rows(100));
    // The same records again (a later state), and a tool that left the catalog.
    await writer.append(rows(100).map((r) => ({ ...r, sessions: 4 })));
    await writer.append([{ ...rows(1)[0]!, tool: "core:gone" }]);
    expect(await readAll(reader)).toHaveLength(201);
    await writer.append(rows(5, 500));
    const report = await store(dir).compact(KEEP_ALL);
    expect(report).toMatchObject({ rowsRead: 206, rowsKept: 105 });
    expect(report!.bytesAfter).toBeLessThan(report!.bytesBefore);
    await writer.append(rows(2, 900));
    // The reader had not read the 5 rows before the compaction, nor the 2 after: exactly those, nothing again.
    expect((await readAll(reader)).map((r) => r.term).sort()).toEqual(["#w500", "#w501", "#w502", "#w503", "#w504", "#w900", "#w901"]);
    // A new process reads the compacted base and what came after.
    const all = await readAll(store(dir));
    expect(all).toHaveLength(107);
    expect(all.find((r) => r.term === "#w3")!.sessions).toBe(4);
    expect(all.some((r) => r.tool === "core:gone")).toBe(false);
  });

  it("a compaction drops the rows of tenants that no longer exist, and hashes terms still in clear", async () => {
    const dir = folder();
    await store(dir).append([...rows(2, 0, "tenant:acme:agent:a"), ...rows(2, 10, "tenant:token%3A3:agent:a"), { ...rows(1, 20)[0]!, term: "jonathan" }]);
    await store(dir).compact({ ...KEEP_ALL, tenants: ["acme"] });
    const all = await readAll(store(dir));
    expect(all.map((r) => r.scope)).toEqual(["tenant:acme:agent:a", "tenant:acme:agent:a", "agent:main"]);
    expect(all[2]!.term).toMatch(/^#[\w-]{16}$/);
    expect(readFileSync(path.join(dir, JOURNAL_FILE), "latin1")).not.toContain("jonathan");
  });

  it("warns that an older store file is not read", () => {
    const dir = folder();
    writeFileSync(path.join(dir, "learned.sqlite"), "");
    const warnings: string[] = [];
    store(dir, { warnings });
    expect(warnings).toEqual([expect.stringMatching(/learned\.sqlite .* is not read; delete it/)]);
  });

  it("a journal cut short (truncated by a full disk) keeps what was whole", async () => {
    const dir = folder();
    const s = store(dir);
    await s.append(rows(1));
    await s.append(rows(1, 1));
    const file = path.join(dir, JOURNAL_FILE);
    truncateSync(file, statSync(file).size - 10);
    expect((await readAll(store(dir))).map((r) => r.term)).toEqual(["#w0"]);
  });
});

describe("journalLearningStore's options", () => {
  it("are checked at the call, naming the option, what is allowed and the value; test seams are not options", () => {
    const dir = folder();
    expect(() => journalLearningStore({ dir, maxBytes: 0 })).toThrow(
      "journalLearningStore.maxBytes: must be an integer from 1 to 1099511627776; got 0 (number)",
    );
    expect(() => journalLearningStore({ dir, learning: { minSessions: 0 } })).toThrow(
      "journalLearningStore.learning.minSessions: must be an integer from 1 to 100; got 0",
    );
    expect(() => journalLearningStore({ dir, now: () => 0 } as never)).toThrow('journalLearningStore: unknown option "now"');
    expect(() => journalLearningStore({} as never)).toThrow("journalLearningStore.dir: must be a folder path; got undefined");
  });

  it("take learning as the config does (on unless enabled is false) and keep rows in the folder's journal", async () => {
    const dir = folder();
    const store = journalLearningStore({ dir, learning: { maxTermsPerTool: 4 } });
    expect(await store.append(rows(3))).toBe(true);
    await store.close?.();
    const again = journalLearningStore({ dir });
    const read: LearnedRow[] = [];
    for await (const batch of again.read()) read.push(...batch);
    expect(read).toHaveLength(3);
    await again.close?.();
  });
});
