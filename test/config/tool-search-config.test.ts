import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, resolveToolSearchConfig } from "../../src/config/tool-search-config.js";

describe("tools.toolSearch", () => {
  it("true is code mode, false is direct, defaults fill the rest", () => {
    expect(resolveToolSearchConfig(true)).toEqual(DEFAULT_SETTINGS);
    expect(resolveToolSearchConfig(undefined).mode).toBe("code");
    expect(resolveToolSearchConfig(false).mode).toBe("direct");
    expect(resolveToolSearchConfig({ mode: "directory", directory: { maxChars: 9000 } }).directory).toEqual({ ...DEFAULT_SETTINGS.directory, maxChars: 9000 });
  });

  it("clamps numbers to their ranges", () => {
    const s = resolveToolSearchConfig({ codeTimeoutMs: 5, maxSearchLimit: 500, searchDefaultLimit: 0 });
    expect(s.codeTimeoutMs).toBe(1000);
    expect(s.maxSearchLimit).toBe(50);
    expect(s.searchDefaultLimit).toBe(1);
    expect(resolveToolSearchConfig({ codeTimeoutMs: 10 ** 6 }).codeTimeoutMs).toBe(60_000);
    expect(resolveToolSearchConfig({ maxSearchLimit: 5 }).searchDefaultLimit).toBe(5);
  });

  it("rejects wrong types and unknown keys, naming path, value and what is allowed", () => {
    expect(() => resolveToolSearchConfig("yes")).toThrow(/tools\.toolSearch: must be true, false or an object/);
    expect(() => resolveToolSearchConfig({ mode: "fast" })).toThrow(/tools\.toolSearch\.mode: must be one of "direct", "code", "tools", "directory"; got "fast"/);
    expect(() => resolveToolSearchConfig({ codeTimeoutMs: "10s" })).toThrow(/tools\.toolSearch\.codeTimeoutMs: must be integer; got "10s"/);
    expect(() => resolveToolSearchConfig({ directory: { maxchars: 1 } })).toThrow(/tools\.toolSearch\.directory: unknown option "maxchars"/);
    try {
      resolveToolSearchConfig({ mode: 1 });
    } catch (error) {
      expect(error).toMatchObject({ code: "CONFIG_INVALID" });
    }
  });
});
