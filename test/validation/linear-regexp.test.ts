import { describe, expect, it } from "vitest";
import { createToolAjv } from "../../src/validation/ajv.js";
import { linearRegExp, UnsupportedPatternError } from "../../src/validation/linear-regexp.js";

describe("linear-time patterns", () => {
  it("answers a catastrophic-backtracking pattern with the right answer, on RE2", () => {
    // The engine is RE2, not a backtracking one: it refuses a backreference, which a backtracking
    // engine runs. Checked first, so that a backtracking engine fails here instead of hanging below.
    expect(() => linearRegExp("^(a)\\1$")).toThrow(UnsupportedPatternError);
    const evil = linearRegExp("^(a+)+$");
    // The backtracking engine needs hours for 40 "a"s and a "!"; RE2 answers in linear time.
    expect([evil.test(`${"a".repeat(40)}!`), evil.test("a".repeat(40))]).toEqual([false, true]);
  });

  it("refuses what RE2 cannot run instead of falling back to backtracking", () => {
    expect(() => linearRegExp("(?=a)b")).toThrow(UnsupportedPatternError);
    expect(() => linearRegExp("(a)\\1")).toThrow(/not supported by the linear-time regex engine/);
    expect(() => linearRegExp("x".repeat(1_001))).toThrow(/1000-character limit/);
  });

  it("keeps JSON Schema semantics for ordinary patterns (unicode, anchors, classes)", () => {
    const date = linearRegExp("^\\d{4}-\\d{2}-\\d{2}$");
    expect(date.test("2026-11-30")).toBe(true);
    expect(date.test("2026-11-3")).toBe(false);
    expect(linearRegExp("^\\p{L}+$").test("Ørsted")).toBe(true);
    expect(linearRegExp("b").test("abc")).toBe(true); // unanchored, as JSON Schema says
  });

  it("keeps distinct patterns apart inside one ajv", () => {
    const ajv = createToolAjv({ untrusted: true });
    for (const i of [1, 2, 3]) {
      const validate = ajv.compile({ type: "object", properties: { f: { type: "string", pattern: `^v${i}-[a-z]+$` } } });
      expect(validate({ f: `v${i}-ok` })).toBe(true);
      expect(validate({ f: `v${i + 1}-ok` })).toBe(false);
    }
  });

  it("is what the tool ajv runs for pattern and patternProperties", () => {
    // The tool ajv compiles both keywords with the linear engine: it refuses what only a backtracking engine runs.
    const ajv = createToolAjv({ untrusted: true });
    expect(() => ajv.compile({ type: "object", properties: { s: { type: "string", pattern: "(?=a)b" } } })).toThrow(UnsupportedPatternError);
    expect(() => ajv.compile({ type: "object", patternProperties: { "(a)\\1": { type: "number" } } })).toThrow(UnsupportedPatternError);
    const validate = createToolAjv({ untrusted: true }).compile({
      type: "object",
      properties: { s: { type: "string", pattern: "^(a+)+$" } },
      patternProperties: { "^(x+)+y$": { type: "number" } },
    });
    expect(validate({ s: `${"a".repeat(34)}!`, [`${"x".repeat(34)}y`]: "not a number" })).toBe(false);
    expect(validate.errors?.map((e) => e.keyword).sort()).toEqual(["pattern", "type"]);
  });
});
