/**
 * An option's default is written once, in its schema: withDefault adds the `default` keyword the
 * checker fills in, and WithSchemaDefaults is the type of the options once it has.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { resolveOptions } from "../../src/engine/options.js";
import { int } from "../../src/validation/ajv.js";
import { withDefault, type WithSchemaDefaults } from "../../src/validation/schema-defaults.js";

interface Options {
  /** Has a default. */
  timeoutMs?: number;
  /** Has none. */
  label?: string;
  nested?: { depth?: number; name?: string };
}

const schema = {
  type: "object",
  additionalProperties: false,
  properties: {
    timeoutMs: withDefault(int(1, 1_000), 50),
    label: { type: "string" },
    nested: withDefault({ type: "object", additionalProperties: false, properties: { depth: withDefault(int(1, 9), 3), name: { type: "string" } } }, {}),
  },
};
type Checked = WithSchemaDefaults<Options, typeof schema>;

describe("withDefault", () => {
  it("is the schema int() writes with a fallback, so schemas (and their generated validators) are unchanged", () => {
    expect(JSON.stringify(withDefault(int(1, 1_000), 50))).toBe(JSON.stringify(int(1, 1_000, 50)));
  });

  // Through createToolSearch's own options (a new schema name here would be one the validator generator does not know).
  it("gives createToolSearch's options their defaults, nested ones included, and leaves options without one absent", () => {
    const resolved = resolveOptions({ limits: { argsDepth: 7 } });
    expect(resolved.callTimeoutMs).toBe(60_000);
    expect(resolved.backend).toBe("bm25f");
    expect(resolved.sources).toEqual([]);
    expect(resolved.tracing).toEqual({ recordQueryText: false });
    expect(resolved.argsLimits).toEqual({ maxBytes: 524_288, maxDepth: 7 });
    expect(resolved.schemaLimits).toEqual({ maxBytes: 65_536, maxNodes: 400, maxDepth: 24, maxPatterns: 64 });
    expect("tenants" in resolved).toBe(false);
  });
});

describe("WithSchemaDefaults", () => {
  it("is the type resolveOptions returns: the options with a default are present", () => {
    expectTypeOf<ReturnType<typeof resolveOptions>["callTimeoutMs"]>().toEqualTypeOf<number>();
    expectTypeOf<ReturnType<typeof resolveOptions>["tracing"]>().toEqualTypeOf<{ recordQueryText: boolean }>();
    expectTypeOf<ReturnType<typeof resolveOptions>["tenants"]>().toEqualTypeOf<readonly string[] | undefined>();
  });

  it("makes the options with a default present and keeps the others optional", () => {
    expectTypeOf<Checked["timeoutMs"]>().toEqualTypeOf<number>();
    expectTypeOf<Checked["nested"]["depth"]>().toEqualTypeOf<number>();
    expectTypeOf<Checked["nested"]["name"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Checked["label"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Checked>().toEqualTypeOf<{ timeoutMs: number; label?: string; nested: { depth: number; name?: string } }>();
  });
});
