import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, resolveToolSearchConfig } from "../../src/settings/tool-search-config.js";
import { resolveOptions } from "../../src/engine/options.js";
import { resolveServerConfig } from "../../src/config/server-config.js";

describe("tools.toolSearch", () => {
  it("true is code mode, false is direct, defaults fill the rest", () => {
    expect(resolveToolSearchConfig(true)).toEqual(DEFAULT_SETTINGS);
    expect(resolveToolSearchConfig(undefined).mode).toBe("code");
    expect(resolveToolSearchConfig(false).mode).toBe("direct");
    expect(resolveToolSearchConfig({ mode: "directory", directory: { maxChars: 9000 } }).directory).toEqual({ ...DEFAULT_SETTINGS.directory, maxChars: 9000 });
  });

  it("refuses a number outside its range with CONFIG_INVALID naming the key, the range and the value; nothing is clamped", () => {
    expect(() => resolveToolSearchConfig({ codeTimeoutMs: 5 })).toThrow(
      /tools\.toolSearch\.codeTimeoutMs: must be an integer from 1000 to 60000; got 5 \(number\)/,
    );
    expect(() => resolveToolSearchConfig({ codeTimeoutMs: 10 ** 6 })).toThrow(/codeTimeoutMs: must be an integer from 1000 to 60000; got 1000000/);
    expect(() => resolveToolSearchConfig({ maxSearchLimit: 500 })).toThrow(/tools\.toolSearch\.maxSearchLimit: must be an integer from 1 to 50; got 500/);
    expect(() => resolveToolSearchConfig({ searchDefaultLimit: 0 })).toThrow(/searchDefaultLimit: must be an integer from 1 to 50; got 0/);
    expect(() => resolveToolSearchConfig({ maxResultBytes: 1 })).toThrow(/maxResultBytes: must be an integer from 1024 to 67108864; got 1/);
    expect(() => resolveToolSearchConfig({ directory: { maxChars: 10 } })).toThrow(
      /tools\.toolSearch\.directory\.maxChars: must be an integer from 500 to 200000; got 10/,
    );
    expect(() => resolveToolSearchConfig({ directory: { likelySchemas: 13 } })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("refuses a default limit above its cap, and lowers an unset default to a smaller cap", () => {
    expect(() => resolveToolSearchConfig({ maxSearchLimit: 5, searchDefaultLimit: 6 })).toThrow(
      /tools\.toolSearch\.searchDefaultLimit: must be at most tools\.toolSearch\.maxSearchLimit \(5\); got 6/,
    );
    expect(() => resolveToolSearchConfig({ searchDefaultLimit: 30 })).toThrow(
      /searchDefaultLimit: must be at most tools\.toolSearch\.maxSearchLimit \(20\); got 30/,
    );
    expect(() => resolveToolSearchConfig({ directory: { maxLikelySchemas: 2, likelySchemas: 3 } })).toThrow(
      /tools\.toolSearch\.directory\.likelySchemas: must be at most tools\.toolSearch\.directory\.maxLikelySchemas \(2\); got 3/,
    );
    expect(resolveToolSearchConfig({ maxSearchLimit: 5 }).searchDefaultLimit).toBe(5);
    expect(resolveToolSearchConfig({ directory: { maxLikelySchemas: 2 } }).directory.likelySchemas).toBe(2);
    expect(resolveToolSearchConfig({ maxSearchLimit: 50, searchDefaultLimit: 50 })).toMatchObject({ maxSearchLimit: 50, searchDefaultLimit: 50 });
  });

  it("rejects wrong types and unknown keys, naming path, value and what is allowed", () => {
    expect(() => resolveToolSearchConfig("yes")).toThrow(/tools\.toolSearch: must be true, false or an object/);
    expect(() => resolveToolSearchConfig({ mode: "fast" })).toThrow(
      /tools\.toolSearch\.mode: must be one of "direct", "code", "tools", "directory"; got "fast"/,
    );
    expect(() => resolveToolSearchConfig({ codeTimeoutMs: "10s" })).toThrow(
      /tools\.toolSearch\.codeTimeoutMs: must be an integer from 1000 to 60000; got "10s" \(string\)/,
    );
    expect(() => resolveToolSearchConfig({ directory: { maxchars: 1 } })).toThrow(/tools\.toolSearch\.directory: unknown option "maxchars"/);
    expect(() => resolveToolSearchConfig({ mode: 1 })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});

describe("tools.toolSearch.indexCacheKey / indexCacheKeyEnv", () => {
  const KEY = "0123456789abcdef0123456789abcdef";

  it("the key (or its variable) reaches the snapshot options next to indexCacheDir", () => {
    expect(resolveOptions({ toolSearch: { indexCacheDir: "/tmp/x", indexCacheKey: KEY } }).indexCache).toEqual({ dir: "/tmp/x", key: KEY });
    const config = resolveServerConfig({ tools: { toolSearch: { indexCacheDir: "cache", indexCacheKeyEnv: "SNAP_KEY" } } }, "/srv/app", { SNAP_KEY: KEY });
    expect(config.toolSearch).toEqual({ indexCacheDir: "/srv/app/cache", indexCacheKey: KEY });
    expect(resolveOptions({ toolSearch: config.toolSearch! }).indexCache).toEqual({ dir: "/srv/app/cache", key: KEY });
  });

  it("a short key, both keys, or a missing or short variable is CONFIG_INVALID, and no message shows a key", () => {
    const messageOf = (f: () => unknown): string => {
      let thrown: unknown;
      try {
        f();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ code: "CONFIG_INVALID" });
      return (thrown as Error).message;
    };
    const short = messageOf(() => resolveToolSearchConfig({ indexCacheKey: "tooShortSecret" }));
    expect(short).toMatch(/indexCacheKey/);
    expect(short).not.toContain("tooShortSecret");
    expect(messageOf(() => resolveToolSearchConfig({ indexCacheKey: KEY, indexCacheKeyEnv: "K" }))).toMatch(
      /at most one of "indexCacheKey" or "indexCacheKeyEnv"/,
    );
    expect(messageOf(() => resolveServerConfig({ tools: { toolSearch: { indexCacheKeyEnv: "SNAP_KEY" } } }, "/srv", {}))).toMatch(
      /indexCacheKeyEnv: the environment variable SNAP_KEY is not set/,
    );
    const weak = messageOf(() => resolveServerConfig({ tools: { toolSearch: { indexCacheKeyEnv: "SNAP_KEY" } } }, "/srv", { SNAP_KEY: "weak" }));
    expect(weak).toMatch(/SNAP_KEY holds 4 characters; a key needs at least 16/);
    expect(weak).not.toContain('weak"');
  });
});
