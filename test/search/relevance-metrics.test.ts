import { describe, expect, it } from "vitest";
import { evaluate, ndcgAtK, recallAtK, reciprocalRank } from "../../bench/lib/relevance.js";

describe("relevance metrics", () => {
  it("recall@k counts the share of relevant ids in the first k", () => {
    expect(recallAtK(["a", "b", "c"], ["b", "z"], 2)).toBe(0.5);
    expect(recallAtK(["a", "b", "c"], ["c"], 2)).toBe(0);
    expect(recallAtK([], ["a"], 5)).toBe(0);
  });
  it("reciprocal rank is 1/rank of the first relevant id", () => {
    expect(reciprocalRank(["a", "b", "c"], ["c", "b"])).toBe(0.5);
    expect(reciprocalRank(["a"], ["z"])).toBe(0);
  });
  it("nDCG is 1 for a perfect ranking and less otherwise", () => {
    expect(ndcgAtK(["a", "b", "x"], ["a", "b"], 10)).toBe(1);
    expect(ndcgAtK(["x", "a"], ["a"], 10)).toBeCloseTo(1 / Math.log2(3));
  });
  it("evaluate averages over queries and counts top-1", () => {
    const r = evaluate(
      [
        { id: "1", query: "q1", relevant: ["a"] },
        { id: "2", query: "q2", relevant: ["b"] },
      ],
      (q) => (q === "q1" ? ["a"] : ["x", "b"]),
    );
    expect(r.top1).toBe(0.5);
    expect(r.mrr).toBe(0.75);
    expect(r.recallAt5).toBe(1);
  });
});
