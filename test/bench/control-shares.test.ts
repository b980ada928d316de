/**
 * The control-path shares bench's own check: on a tiny catalog and a tiny flood it measures each
 * flood beside the same calls alone, every quiet call answered and the flood's calls answered as
 * their kind is (no timing assertions: this machine may be slow or busy).
 */
import { describe, expect, it } from "vitest";
import { runControlShares } from "../../bench/control-shares/control-shares.js";

describe("bench/control-shares", () => {
  it("measures the quiet tenant alone and flooded, for each flood kind", { timeout: 60_000 }, async () => {
    const rows = await runControlShares({
      tools: 50,
      calls: 3,
      rounds: 1,
      gapMs: 1,
      sessions: 2,
      inFlight: 2,
      idChars: 253,
      kinds: ["describe-unknown", "batch-search"],
      settleMs: 100,
    });
    expect(rows.map((r) => r.kind)).toEqual(["describe-unknown", "batch-search"]);
    for (const row of rows) {
      expect(row.alone.outcomes).toEqual({ ok: 3 });
      expect(row.flooded.outcomes).toEqual({ ok: 3 });
      expect(row.flooder.sent).toBeGreaterThan(0);
      expect(Number.isFinite(row.p50Ratio)).toBe(true);
    }
    expect(Object.keys(rows[0]!.flooder.outcomes)).toEqual(["TOOL_NOT_FOUND"]);
    expect(Object.keys(rows[1]!.flooder.outcomes)).toEqual(["ok"]);
  });
});
